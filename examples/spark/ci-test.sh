#!/usr/bin/env bash
# The Spark scale-out test: the PySpark driver on Spark local[2] must give byte for byte the
# fingerprints, pairs and clusters of the local shell pipeline, for two (B, K) settings, two
# partition counts, ids and line numbers, --sparse, and 256-bit fingerprints (sh-compute --bits
# 256) with the driver's default K and B for that width.
#
# Needs: the sh-* commands ($SH_TOOLS_BIN, else on PATH), python3 with venv, Java 17+.
# Installs pyspark==4.3.0 into a venv ($SH_TOOLS_SPARK_VENV, default target/spark-venv; kept
# and reused while it holds that version). Spark binds to 127.0.0.1 only, without its web UI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
started=$SECONDS
die() { echo "ci-test.sh: $*" >&2; exit 1; }

bin="${SH_TOOLS_BIN:-}"
if [ -z "$bin" ]; then
  found="$(command -v sh-pairs)" || die "sh-pairs is not on PATH: install the commands (cargo install --path .) or set SH_TOOLS_BIN"
  bin="$(cd "$(dirname "$found")" && pwd)"
fi
for c in sh-tokenize sh-shingle sh-hash sh-df sh-weight sh-compute sh-pairs sh-cluster; do
  [ -x "$bin/$c" ] || die "$bin/$c: not found"
done
export SH_TOOLS_BIN="$bin"
export PATH="$bin:$PATH"
command -v java > /dev/null || die "java not found: Spark 4 needs Java 17 or later"

venv="${SH_TOOLS_SPARK_VENV:-$root/target/spark-venv}"
if ! "$venv/bin/python" -c 'import sys, pyspark; sys.exit(pyspark.__version__ != "4.3.0")' 2> /dev/null; then
  echo "== installing pyspark==4.3.0 into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pyspark==4.3.0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/make_corpus.py" "$work" 3000
mkdir -p "$work/local" "$work/spark"

# The runs: name, input format, B, K (-: the driver's default, and the local sh-pairs' for the
# width), partitions, extra flag (--df: corpus statistics, with sh-df and sh-weight between
# sh-hash and sh-compute; --bits N: sh-compute --bits N; otherwise for sh-pairs).
runs=(
  "ids-b6-k3-p2 jsonl 6 3 2 -"
  "ids-df-b6-k3-p3 jsonl 6 3 3 --df"
  "lines-df-b8-k4-p2 text 8 4 2 --df"
  "ids-b6-k3-p5 jsonl 6 3 5 -"
  "lines-b8-k4-p2 text 8 4 2 -"
  "lines-b8-k4-p5 text 8 4 5 -"
  "lines-b8-k4-p3-sparse text 8 4 3 --sparse"
  "ids-w256-default-p3 jsonl - - 3 --bits 256"
)

echo "== local pipeline"
sh-tokenize --json --id-field id < "$work/docs.jsonl" | sh-shingle | sh-hash | sh-compute > "$work/local/jsonl.fp"
sh-tokenize < "$work/docs.txt" | sh-shingle | sh-hash | sh-compute > "$work/local/text.fp"
for format in jsonl text; do
  flags="--json --id-field id" file=docs.jsonl
  [ "$format" = text ] && flags="" file=docs.txt
  sh-tokenize $flags < "$work/$file" | sh-shingle | sh-hash > "$work/local/$format.hashes"
  sh-df < "$work/local/$format.hashes" > "$work/local/$format.df"
  sh-weight --df "$work/local/$format.df" < "$work/local/$format.hashes" | sh-compute > "$work/local/$format-df.fp"
  sh-compute --bits 256 < "$work/local/$format.hashes" > "$work/local/$format-256.fp"
done
# The fingerprints a run's pairs come from.
fingerprints_of() { # format, flag
  case "$2" in
    --df) echo "$work/local/$1-df.fp" ;;
    --bits*) echo "$work/local/$1-${2#--bits }.fp" ;;
    *) echo "$work/local/$1.fp" ;;
  esac
}
driver_runs=()
for run in "${runs[@]}"; do
  read -r name format b k p flag <<< "$run"
  [ "$flag" = - ] && flag=""
  fp="$(fingerprints_of "$format" "$flag")"
  pairs_flag=$flag
  case "$flag" in --df | --bits*) pairs_flag="" ;; esac
  k_flag="" b_flag=""
  [ "$k" = - ] || k_flag="-k $k"
  [ "$b" = - ] || b_flag="-b $b"
  # Without -b: the local output never depends on B.
  sh-pairs $k_flag $pairs_flag < "$fp" > "$work/local/$name.pairs"
  sh-cluster < "$work/local/$name.pairs" > "$work/local/$name.clusters"
  input="--input $work/docs.txt --input-format text"
  [ "$format" = jsonl ] && input="--input $work/docs.jsonl --input-format jsonl --id-field id"
  driver_runs+=("$input $b_flag $k_flag --partitions $p $flag --output $work/spark/$name --clusters $work/spark/$name.clusters")
done

echo "== Spark local[2]: ${#runs[@]} runs of examples/spark/driver.py"
export SPARK_LOCAL_IP=127.0.0.1 PYTHONDONTWRITEBYTECODE=1
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python"
if ! PATH="$venv/bin:$PATH" spark-submit --master 'local[2]' \
    --conf spark.ui.enabled=false \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
    --conf spark.log.level=WARN \
    "$here/ci_runs.py" "${driver_runs[@]}" > "$work/spark.log" 2>&1; then
  cat "$work/spark.log" >&2
  die "the Spark run failed"
fi
grep -E '^  [0-9.]+ s: |^sh-tools on Spark' "$work/spark.log" || true

echo "== comparing"
passed=0
failures=0
check() { # what, expected file, actual file
  if cmp -s "$2" "$3"; then
    echo "ok: $1"
    passed=$((passed + 1))
  else
    echo "DIFFERENT: $1"
    diff "$2" "$3" | head -10 || true
    failures=$((failures + 1))
  fi
}
for run in "${runs[@]}"; do
  read -r name format b k p flag <<< "$run"
  spark="$work/spark/$name"
  cat "$spark"/fingerprints/part-* > "$spark.fp"
  cat "$spark"/pairs/part-* > "$spark.pairs"
  if [ "$flag" = --df ]; then
    cat "$spark"/df/part-* > "$spark.df"
    check "$name: document-frequency table ($(wc -l < "$spark.df") lines)" "$work/local/$format.df" "$spark.df"
  fi
  check "$name: fingerprints" "$(fingerprints_of "$format" "$flag")" "$spark.fp"
  LC_ALL=C sort "$work/local/$name.pairs" > "$work/local/$name.sorted"
  LC_ALL=C sort "$spark.pairs" > "$spark.sorted"
  check "$name: sorted pairs ($(wc -l < "$spark.pairs") pairs)" "$work/local/$name.sorted" "$spark.sorted"
  check "$name: pairs in sh-pairs' order" "$work/local/$name.pairs" "$spark.pairs"
  check "$name: clusters ($(wc -l < "$spark.clusters") clusters)" "$work/local/$name.clusters" "$spark.clusters"
  # A meaningful corpus: identical and near fingerprints in each run.
  [ "$(awk -F'\t' '$3 == 0' "$spark.pairs" | wc -l)" -ge 20 ] || { echo "too few identical pairs: $name"; failures=$((failures + 1)); }
  [ "$(awk -F'\t' '$3 > 0' "$spark.pairs" | wc -l)" -ge 20 ] || { echo "too few near pairs: $name"; failures=$((failures + 1)); }
done
elapsed=$((SECONDS - started))
echo "Spark runs against the local pipeline, ${elapsed} s:"
echo "spark: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
