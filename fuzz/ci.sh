#!/usr/bin/env bash
# Runs every fuzz target for N seconds each (default 30), one after the other, and fails on any
# crash, panic, timeout or leak. Needs the nightly toolchain; installs cargo-fuzz when it is
# missing. Without nightly (or when cargo-fuzz cannot be installed) it says so and exits 0.
#
#   fuzz/ci.sh            # 30 s per target (CI)
#   fuzz/ci.sh 600        # a campaign: 10 minutes per target
#   FUZZ_RUNS=10000000 FUZZ_NICE=19 fuzz/ci.sh 600   # ... or 10M executions, whichever first
#   FUZZ_TARGETS="json cluster" fuzz/ci.sh 60        # only some targets
#   FUZZ_KEEP=/tmp/found fuzz/ci.sh 600              # keep the new inputs in /tmp/found/TARGET
#
# New inputs found go to a temporary directory, not to the committed corpora in fuzz/corpus/
# (to add them: `cargo +nightly fuzz cmin TARGET`); a crashing input is kept in
# fuzz/artifacts/TARGET/ and reproduced with `cargo +nightly fuzz run TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-30}"
runs="${FUZZ_RUNS:--1}"
nice_level="${FUZZ_NICE:-0}"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: no nightly toolchain (rustup toolchain install nightly); fuzzing skipped"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    if ! cargo install cargo-fuzz --locked; then
        echo "fuzz: cargo-fuzz could not be installed; fuzzing skipped"
        exit 0
    fi
fi

# cargo-fuzz sets RUSTFLAGS, which replaces the workspace's `-C target-cpu=x86-64-v2`
# (.cargo/config.toml); cargo-fuzz adds its own flags to those found here, so the targets are
# built for the processor the commands are, and fuzz the code that ships (sh-core's 16-byte
# number reading is compiled only there).
if [ "$(uname -m)" = "x86_64" ]; then
    export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=x86-64-v2"
fi

echo "fuzz: building the targets"
nice -n "$nice_level" cargo +nightly fuzz build

targets="${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}"
if [ -n "${FUZZ_KEEP:-}" ]; then
    scratch="$FUZZ_KEEP" # new inputs kept there, for `cargo fuzz cmin`
    mkdir -p "$scratch"
else
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
fi
failed=()
for target in $targets; do
    mkdir -p "$scratch/$target" "corpus/$target"
    log="$scratch/$target.log"
    # The scratch directory comes first: libFuzzer writes what it finds to the first corpus.
    if nice -n "$nice_level" cargo +nightly fuzz run "$target" "$scratch/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -runs="$runs" -timeout=10 -print_final_stats=1 \
        >"$log" 2>&1; then
        status="ok"
    else
        status="FAILED"
        failed+=("$target")
    fi
    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    elapsed="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
    echo "fuzz: $target: $status, ${executions:-?} executions in ${elapsed:-$seconds} s"
    if [ "$status" = "FAILED" ]; then
        grep -E -A 30 "panicked|ERROR: libFuzzer|SUMMARY" "$log" | head -n 60 || tail -n 60 "$log"
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
echo "fuzz: every target ran ${seconds} s without a crash"
