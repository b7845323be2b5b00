#!/usr/bin/env bash
# The measurement behind docs/SCALE.md: the driver on Spark local[2] over a generated corpus
# with planted near-duplicates (make_corpus.py), all outputs (pairs, clusters, duplicates,
# labels, the kept corpus), Spark's event log summed by step (stage_report.py): wall time,
# executor time, shuffle bytes and records, spills; the rounds of the components algorithm.
# The local pipeline runs on the same corpus, for the clusters to be compared byte for byte and
# for its time beside Spark's.
#
#   examples/spark/measure.sh [DOCUMENTS [DIR]]     # default 1000000 and target/spark-measure
#
# Then the rounds of the components algorithm on long chains: make_graphs.py at scale 10 (a
# chain of 30,000 in input order, one of 20,000 scattered, a giant cluster of 40,050), its
# clusters compared with sh-cluster's.
#
# Needs the sh-* commands on PATH (or $SH_TOOLS_BIN) and the venv of ci-test.sh (pyspark 4.3.0,
# $SH_TOOLS_SPARK_VENV, default target/spark-venv). Not part of CI: 1M documents take
# 20 to 30 minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
die() { echo "measure.sh: $*" >&2; exit 1; }
n="${1:-1000000}"
dir="${2:-$root/target/spark-measure}"
k=3 b=5 partitions=8
venv="${SH_TOOLS_SPARK_VENV:-$root/target/spark-venv}"
[ -x "$venv/bin/spark-submit" ] || die "$venv/bin/spark-submit: not found (run examples/spark/ci-test.sh once, or set SH_TOOLS_SPARK_VENV)"
if [ -n "${SH_TOOLS_BIN:-}" ]; then export PATH="$SH_TOOLS_BIN:$PATH"; fi
command -v sh-pairs > /dev/null || die "sh-pairs is not on PATH: install the commands or set SH_TOOLS_BIN"

rm -rf "$dir"
mkdir -p "$dir/events" "$dir/local"
echo "== corpus: $n documents"
python3 "$here/make_corpus.py" "$dir/corpus" "$n"
ls -l "$dir/corpus/docs.jsonl"

echo "== local pipeline (K=$k)"
start=$(date +%s.%N)
sh-tokenize --json --id-field id < "$dir/corpus/docs.jsonl" | sh-shingle | sh-hash | sh-compute > "$dir/local/fp"
sh-pairs -k "$k" < "$dir/local/fp" > "$dir/local/pairs"
sh-cluster < "$dir/local/pairs" > "$dir/local/clusters"
echo "local pipeline: $(echo "$(date +%s.%N) - $start" | bc | xargs printf "%.1f") s"

echo "== Spark local[2]: driver.py -k $k -b $b --partitions $partitions"
echo "load before: $(uptime)"
start=$(date +%s.%N)
SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python" \
  "$venv/bin/spark-submit" --master 'local[2]' \
  --conf spark.ui.enabled=false --conf spark.driver.memory=4g --conf spark.log.level=WARN \
  --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="file://$dir/events" \
  --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false \
  "$here/driver.py" --input "$dir/corpus/docs.jsonl" --input-format jsonl --id-field id \
  -k "$k" -b "$b" --partitions "$partitions" --labels \
  --output "$dir/spark" --keep "$dir/spark/kept" > "$dir/spark.log" 2>&1 \
  || { tail -n 50 "$dir/spark.log"; die "the Spark run failed"; }
echo "Spark run: $(echo "$(date +%s.%N) - $start" | bc | xargs printf "%.1f") s"
echo "load after: $(uptime)"
grep '^sh-tools on Spark' "$dir/spark.log"

echo "== comparing"
cat "$dir/spark/pairs"/part-* | cmp - "$dir/local/pairs" && echo "pairs: identical ($(wc -l < "$dir/local/pairs"))"
cat "$dir/spark/clusters"/part-* | cmp - "$dir/local/clusters" && echo "clusters: identical ($(wc -l < "$dir/local/clusters"))"
echo "kept: $(cat "$dir/spark/kept"/part-* | wc -l) of $n documents"

echo "== Spark's event log by step"
python3 "$here/stage_report.py" "$dir"/events/* | tee "$dir/report.md"

echo "== chains: make_graphs.py at scale 10 on local[2]"
python3 "$here/make_graphs.py" "$dir/graphs" 10
sh-pairs -k "$k" < "$dir/graphs/graphs.fp" | sh-cluster > "$dir/graphs/clusters"
start=$(date +%s.%N)
SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python" \
  "$venv/bin/spark-submit" --master 'local[2]' \
  --conf spark.ui.enabled=false --conf spark.driver.memory=4g --conf spark.log.level=WARN \
  "$here/driver.py" --input "$dir/graphs/graphs.fp" --input-format fingerprints \
  -k "$k" -b "$b" --partitions "$partitions" --output "$dir/graphs/spark" > "$dir/graphs.log" 2>&1 \
  || { tail -n 50 "$dir/graphs.log"; die "the Spark run on the graphs failed"; }
echo "Spark run: $(echo "$(date +%s.%N) - $start" | bc | xargs printf "%.1f") s"
grep '^sh-tools on Spark' "$dir/graphs.log"
cat "$dir/graphs/spark/clusters"/part-* | cmp - "$dir/graphs/clusters" \
  && echo "clusters: identical, sizes $(awk -F'\t' '{ print NF }' "$dir/graphs/clusters" | sort -n | tr '\n' ' ')"
