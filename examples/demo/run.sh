#!/usr/bin/env bash
# The whole pipeline on the shipped demo corpus: fingerprints, near-duplicate pairs, clusters,
# and the list of documents to drop to keep one per cluster.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# `cargo install` puts the commands here; an earlier PATH entry still wins.
PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

sh-tokenize --json --id-field id < "$here/docs.jsonl" \
  | sh-shingle | sh-hash | sh-compute > "$work/fingerprints.tsv"
sh-pairs < "$work/fingerprints.tsv" > "$work/pairs.tsv"

echo "== $(wc -l < "$work/fingerprints.tsv") documents, $(wc -l < "$work/pairs.tsv") near-duplicate pairs (the defaults: 2-token shingles, K = 6):"
cat "$work/pairs.tsv"
echo "== clusters (sh-cluster), one per line:"
sh-cluster < "$work/pairs.tsv"
echo "== documents to drop, keeping the first of each cluster (sh-cluster --duplicates):"
sh-cluster --duplicates < "$work/pairs.tsv"

# The recommended pipeline for real corpora (README.md): corpus statistics leave out what many
# documents share before the fingerprints are computed, and 256-bit fingerprints tell near
# duplicates from chance more sharply.
sh-tokenize --json --id-field id < "$here/docs.jsonl" | sh-shingle | sh-hash > "$work/hashes"
sh-df < "$work/hashes" > "$work/df"
sh-weight --df "$work/df" < "$work/hashes" | sh-compute --bits 256 | sh-pairs > "$work/pairs-df.tsv"
echo "== with corpus statistics (sh-df, sh-weight) and 256-bit fingerprints (K = 40 in total): $(wc -l < "$work/pairs-df.tsv") pairs, clusters:"
sh-cluster < "$work/pairs-df.tsv"
