#!/usr/bin/env bash
# The detection-quality evaluation of sh-tools: builds the release binaries, sets up a Python
# environment (datasketch, matplotlib), fetches the data (Debian's linux-doc-6.1 and
# manpages-zh, the npm package spdx-license-list), makes the evaluation sets, sweeps every
# tokenizer mode, shingle window 2-8 and K 0-10, runs MinHash LSH on the same shingles, and
# writes the results. docs/QUALITY.md explains the method and shows the results.
#
#   eval/run.sh [--quick] [--reuse]
#
#   --quick   windows 3 and 4 and two MinHash thresholds only: a smoke test of the suite
#   --reuse   no new runs: tables and plots again from the scores of the last run
#
# Writes: eval/work/report.md (every table), eval/work/results.tsv (every score),
# docs/quality-synthetic.png and docs/quality-pr.png (the plots). Everything else, data
# included, stays in eval/work/ (git-ignored; delete it to start afresh).
# Needs: cargo, python3 (with venv), npm, apt-get and dpkg-deb (Debian; apt-get update needs
# root), gzip, perl. Takes about 10 minutes on 2 cores, plus the release build. CARGO_TARGET_DIR
# is respected.
set -euo pipefail
started=$(date +%s)
cd "$(dirname "$0")/.."
root=$PWD
work=$root/eval/work
raw=$work/raw
mkdir -p "$raw"
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

log "building the release binaries"
cargo build --release --locked --quiet
bin=${CARGO_TARGET_DIR:-$root/target}/release

if [ ! -x "$work/venv/bin/python" ] || ! "$work/venv/bin/python" -c 'import datasketch, matplotlib' 2>/dev/null; then
    log "setting up the Python environment in eval/work/venv"
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check -r eval/requirements.txt
fi
python=$work/venv/bin/python

if [ ! -s "$raw/linux-doc.tsv" ] || [ ! -d "$raw/manpages-zh" ]; then
    if [ "$(id -u)" = 0 ]; then
        log "apt-get update"
        apt-get update >/dev/null
    fi
fi
if [ ! -s "$raw/linux-doc.tsv" ]; then
    log "fetching the Linux documentation"
    scripts/fetch-linux-doc.sh "$raw/linux-doc.tsv"
fi
if [ ! -d "$raw/manpages-zh" ]; then
    log "fetching manpages-zh"
    rm -rf "$raw/manpages-zh.tmp" && mkdir -p "$raw/manpages-zh.tmp"
    (cd "$raw/manpages-zh.tmp" && apt-get download manpages-zh 2>/dev/null && dpkg-deb -x manpages-zh_*.deb tree)
    dpkg-deb -W --showformat='${Package} ${Version}\n' "$raw"/manpages-zh.tmp/*.deb >"$raw/manpages-zh.tmp/version"
    mv "$raw/manpages-zh.tmp" "$raw/manpages-zh"
fi
if [ ! -d "$raw/spdx-license-list" ]; then
    log "fetching spdx-license-list"
    rm -rf "$raw/spdx.tmp" && mkdir -p "$raw/spdx.tmp"
    (cd "$raw/spdx.tmp" && npm pack --silent spdx-license-list@6.12.0 >/dev/null && tar xzf spdx-license-list-*.tgz)
    mv "$raw/spdx.tmp/package" "$raw/spdx-license-list" && rm -rf "$raw/spdx.tmp"
fi

reuse=false
for arg in "$@"; do [ "$arg" = --reuse ] && reuse=true; done
$reuse || log "making the evaluation sets"
$reuse || "$python" eval/datasets.py --linux-doc "$raw/linux-doc.tsv" --licenses "$raw/spdx-license-list" \
    --manpages "$raw/manpages-zh/tree" --out "$work/sets"

log "sweeping"
"$python" eval/evaluate.py --sets "$work/sets" --bin "$bin" --work "$work/sweep" \
    --plots "$root/docs" --report "$work/report.md" "$@"

log "data: $(cat "$raw/linux-doc.tsv.version"), $(cat "$raw/manpages-zh/version"), spdx-license-list 6.12.0"
log "done in $(( $(date +%s) - started )) s: eval/work/report.md, docs/quality-*.png"
