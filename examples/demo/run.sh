#!/usr/bin/env bash
# The whole pipeline on the shipped demo corpus: fingerprints, near-duplicate pairs, clusters,
# and the list of documents to drop to keep one per cluster; then an index of part of the
# corpus, queried with the rest.
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
echo "== with corpus statistics (sh-df, sh-weight) and 256-bit fingerprints (K = 44 in total): $(wc -l < "$work/pairs-df.tsv") pairs, clusters:"
sh-cluster < "$work/pairs-df.tsv"

# A persistent index for queries as they come (sh-index, README.md "Online queries"): the
# first 30 documents' fingerprints are indexed (20, then 10 more as a second segment), and the
# other 23 are asked against it. The answers are the lines of sh-pairs --against the same 30,
# which reads the index as well as the file.
head -n 20 "$work/fingerprints.tsv" | sh-index build -q -o "$work/index"
sed -n 21,30p "$work/fingerprints.tsv" | sh-index add -q "$work/index"
tail -n +31 "$work/fingerprints.tsv" > "$work/queries.tsv"
sh-index query "$work/index" < "$work/queries.tsv" > "$work/answers.tsv"
head -n 30 "$work/fingerprints.tsv" > "$work/indexed.tsv"
for corpus in "$work/indexed.tsv" "$work/index"; do
  sh-pairs --against "$corpus" < "$work/queries.tsv" | cmp -s - "$work/answers.tsv" \
    || { echo "sh-index query and sh-pairs --against $corpus differ" >&2; exit 1; }
done
echo "== sh-index: 30 documents indexed, the other 23 queried: $(wc -l < "$work/answers.tsv") answers (QUERY, INDEXED, DISTANCE), the lines of sh-pairs --against:"
cat "$work/answers.tsv"
