#!/usr/bin/env bash
# The Spark scale-out test, on a real Spark cluster: a standalone master and two workers on
# 127.0.0.1, each its own process (JVM) with its own work directory, started from the pyspark
# distribution. The driver (examples/spark/driver.py, through ci_runs.py) is submitted to
# spark://127.0.0.1:PORT; the sh-* commands reach the executors the Spark way, with
# `spark-submit --files` (each executor fetches them into its working directory: --bin-dir .),
# not by a shared path. Each run must give byte for byte the local pipeline's fingerprints and
# pairs, sh-cluster's clusters, duplicates and labels on those pairs, and with --keep the input
# lines that `grep -vxFf duplicates` keeps: on the generated corpus for two (B, K) settings,
# partition counts 2 to 5, ids and line numbers, --df, --sparse, --min-size and 256-bit
# fingerprints; and on fingerprints whose pairs form long chains (in input order and
# scattered), stars, one giant cluster and many singletons (make_graphs.py).
#
# Needs: the sh-* commands ($SH_TOOLS_BIN, else on PATH), python3 with venv, Java 17+.
# Installs pyspark==4.3.0 into a venv ($SH_TOOLS_SPARK_VENV, default target/spark-venv; kept
# and reused while it holds that version). Everything binds to 127.0.0.1 (the master's and
# workers' ports are picked by the system; no driver UI, no REST server). The daemons are
# stopped on every way out of this script (trap).
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
shipped=(sh-tokenize sh-shingle sh-hash sh-df sh-weight sh-compute sh-pairs)
for c in "${shipped[@]}" sh-cluster; do
  [ -x "$bin/$c" ] || die "$bin/$c: not found"
done
export PATH="$bin:$PATH"
java="$(command -v java)" || die "java not found: Spark 4 needs Java 17 or later"

venv="${SH_TOOLS_SPARK_VENV:-$root/target/spark-venv}"
if ! "$venv/bin/python" -c 'import sys, pyspark; sys.exit(pyspark.__version__ != "4.3.0")' 2> /dev/null; then
  echo "== installing pyspark==4.3.0 into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pyspark==4.3.0
fi
spark_home="$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"

work="$(mktemp -d)"
daemons=()
stop_daemons() {
  # Workers first (each stops its executors), then the master; SIGKILL what is left after 20 s.
  local pid i
  for pid in "${daemons[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for i in $(seq 1 40); do
    alive=0
    for pid in "${daemons[@]}"; do kill -0 "$pid" 2> /dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.5
  done
  for pid in "${daemons[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
  daemons=()
}
submit=""
cleanup() {
  # The driver (spark-submit) first, if it still runs, then the daemons.
  if [ -n "$submit" ] && kill -0 "$submit" 2> /dev/null; then
    kill -TERM "$submit" 2> /dev/null || true
    wait "$submit" 2> /dev/null || true
  fi
  stop_daemons
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A daemon's log when something fails.
show_logs() { for f in "$work"/cluster/*.log; do echo "--- $f" >&2; tail -n 30 "$f" >&2; done; }

python3 "$here/make_corpus.py" "$work" 3000
python3 "$here/make_graphs.py" "$work"
mkdir -p "$work/local" "$work/spark" "$work/cluster"

# The runs: name, input format, B, K (-: the driver's default, and the local sh-pairs' for the
# width), partitions, extra flag (--df: corpus statistics, with sh-df and sh-weight between
# sh-hash and sh-compute, and --df --min-run 3 with that flag of sh-weight; --bits N: sh-compute --bits N; --min-size N: for sh-cluster;
# otherwise for sh-pairs). Format graphs: the fingerprints of make_graphs.py
# (--input-format fingerprints); format marked: the same with a byte-order mark at the start of
# the file and of every seventh line (files an editor saved, joined by cat), which sh-pairs
# drops and Spark's reader drops at the file's start: the same ids, pairs and clusters.
runs=(
  "ids-b6-k3-p2 jsonl 6 3 2 -"
  "ids-df-b6-k3-p3 jsonl 6 3 3 --df"
  "lines-df-b8-k4-p2 text 8 4 2 --df"
  "ids-df-run3-b6-k3-p2 jsonl 6 3 2 --df --min-run 3"
  "ids-b6-k3-p5 jsonl 6 3 5 -"
  "lines-b8-k4-p2 text 8 4 2 -"
  "lines-b8-k4-p5-min3 text 8 4 5 --min-size 3"
  "lines-b8-k4-p3-sparse text 8 4 3 --sparse"
  "ids-w256-default-p3 jsonl - - 3 --bits 256"
  "graphs-b6-k3-p3 graphs 6 3 3 -"
  "graphs-b5-k3-p4-sparse graphs 5 3 4 --sparse"
  "marked-b6-k3-p3 marked 6 3 3 -"
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
  sh-weight --df "$work/local/$format.df" --min-run 3 < "$work/local/$format.hashes" | sh-compute > "$work/local/$format-df-run3.fp"
  sh-compute --bits 256 < "$work/local/$format.hashes" > "$work/local/$format-256.fp"
done
cp "$work/graphs.fp" "$work/local/graphs.fp"
awk 'NR % 7 == 1 { printf "\357\273\277" } { print }' "$work/graphs.fp" > "$work/marked.fp"
cp "$work/marked.fp" "$work/local/marked.fp"
# The fingerprints a run's pairs come from, and its input file.
fingerprints_of() { # format, flag
  case "$2" in
    --df) echo "$work/local/$1-df.fp" ;;
    "--df --min-run 3") echo "$work/local/$1-df-run3.fp" ;;
    --bits*) echo "$work/local/$1-${2#--bits }.fp" ;;
    *) echo "$work/local/$1.fp" ;;
  esac
}
input_of() { # format
  case "$1" in
    jsonl) echo "$work/docs.jsonl" ;;
    text) echo "$work/docs.txt" ;;
    graphs) echo "$work/graphs.fp" ;;
    marked) echo "$work/marked.fp" ;;
  esac
}
driver_runs=()
for run in "${runs[@]}"; do
  read -r name format b k p flag <<< "$run"
  [ "$flag" = - ] && flag=""
  fp="$(fingerprints_of "$format" "$flag")"
  pairs_flag="" cluster_flag=""
  case "$flag" in
    --sparse) pairs_flag=$flag ;;
    --min-size*) cluster_flag=$flag ;;
  esac
  k_flag="" b_flag=""
  [ "$k" = - ] || k_flag="-k $k"
  [ "$b" = - ] || b_flag="-b $b"
  local="$work/local/$name"
  # Without -b: the local output never depends on B.
  sh-pairs $k_flag $pairs_flag < "$fp" > "$local.pairs"
  sh-cluster $cluster_flag < "$local.pairs" > "$local.clusters"
  sh-cluster $cluster_flag --duplicates < "$local.pairs" > "$local.duplicates"
  # --labels: ID<TAB>LABEL, the label the id of the cluster's first member (sh-cluster's labels
  # give the cluster's number, its line in the tsv output).
  sh-cluster $cluster_flag --format labels < "$local.pairs" \
    | awk -F'\t' 'NR == FNR { first[NR] = $1; next } { print $1 "\t" first[$2] }' "$local.clusters" - > "$local.labels"
  # --keep: the input lines whose id (the fingerprint line's, without a byte-order mark at its
  # start, or its line number) is not a duplicate. Spark's reader drops a mark at the start of
  # the file, so the first line is kept without it (a mark at the start of a later line stays).
  LC_ALL=C awk -F'\t' 'FILENAME == ARGV[1] { drop[$0]; next }
    FILENAME == ARGV[2] { n++; id = index($0, "\t") ? $1 : n; if (substr(id, 1, 3) == "\357\273\277") id = substr(id, 4)
      if (id in drop) gone[n]; next }
    FNR == 1 && substr($0, 1, 3) == "\357\273\277" { $0 = substr($0, 4) }
    !(FNR in gone)' "$local.duplicates" "$fp" "$(input_of "$format")" > "$local.kept"
  case "$format" in
    jsonl) input="--input-format jsonl --id-field id" ;;
    text) input="--input-format text" ;;
    graphs | marked) input="--input-format fingerprints" ;;
  esac
  out="$work/spark/$name"
  driver_runs+=("--bin-dir . --input $(input_of "$format") $input $b_flag $k_flag --partitions $p $flag --labels --output $out --keep $out/kept")
done
# One run also writes the single clusters file on the driver (--clusters, for small runs).
driver_runs[0]+=" --clusters $work/spark/ids-b6-k3-p2.file"

echo "== Spark standalone cluster: a master and two workers on 127.0.0.1"
export SPARK_HOME="$spark_home" SPARK_LOCAL_IP=127.0.0.1 PYTHONDONTWRITEBYTECODE=1
export SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false"
"$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port 0 --webui-port 0 > "$work/cluster/master.log" 2>&1 &
daemons+=($!)
master=""
for _ in $(seq 1 120); do
  master="$(grep -o 'spark://127\.0\.0\.1:[0-9]*' "$work/cluster/master.log" | head -n 1 || true)"
  [ -n "$master" ] && break
  kill -0 "${daemons[0]}" 2> /dev/null || { show_logs; die "the Spark master ended before it started"; }
  sleep 0.5
done
[ -n "$master" ] || { show_logs; die "the Spark master did not start in 60 s"; }
for w in 1 2; do
  mkdir -p "$work/cluster/worker$w"
  "$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
    --host 127.0.0.1 --port 0 --webui-port 0 --cores 1 --memory 1g \
    --work-dir "$work/cluster/worker$w" "$master" > "$work/cluster/worker$w.log" 2>&1 &
  daemons+=($!)
done
for _ in $(seq 1 120); do
  [ "$(grep -c 'Registering worker' "$work/cluster/master.log" || true)" -ge 2 ] && break
  sleep 0.5
done
[ "$(grep -c 'Registering worker' "$work/cluster/master.log" || true)" -ge 2 ] \
  || { show_logs; die "two workers did not register with $master in 60 s"; }
echo "master $master, workers: $(grep -o 'Registering worker [0-9.:]*' "$work/cluster/master.log" | cut -d' ' -f3 | tr '\n' ' ')"

echo "== ${#runs[@]} runs of examples/spark/driver.py on $master"
files="$(printf "$bin/%s," "${shipped[@]}")"
# The driver runs here (client mode) with no sh-* command on its PATH: the executors use the
# shipped copies, the driver none.
# In the background, waited for: a signal to this script runs its trap at once, not after
# spark-submit ends.
PATH="$venv/bin:$(dirname "$java"):/usr/bin:/bin" PYSPARK_PYTHON="$venv/bin/python" \
  PYSPARK_DRIVER_PYTHON="$venv/bin/python" spark-submit --master "$master" \
  --files "${files%,}" \
  --conf spark.executor.memory=768m \
  --conf spark.ui.enabled=false \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.log.level=WARN \
  "$here/ci_runs.py" "${driver_runs[@]}" > "$work/spark.log" 2>&1 &
submit=$!
status=0
wait "$submit" || status=$?
submit=""
if [ "$status" -ne 0 ]; then
  cat "$work/spark.log" >&2
  show_logs
  die "the Spark run failed"
fi
grep -E '^  [0-9.]+ s: |^sh-tools on Spark' "$work/spark.log" || true
# The work was spread over the two workers: each ran an executor of the application.
for w in 1 2; do
  ls "$work/cluster/worker$w"/app-*/*/sh-pairs > /dev/null 2>&1 \
    || { show_logs; die "worker $w ran no executor with the shipped commands"; }
done
stop_daemons
echo "daemons stopped"

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
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
for run in "${runs[@]}"; do
  read -r name format b k p flag <<< "$run"
  spark="$work/spark/$name"
  local="$work/local/$name"
  for part in fingerprints pairs clusters duplicates labels kept df; do
    if [ -d "$spark/$part" ]; then cat "$spark/$part"/part-* > "$spark.$part"; fi
  done
  if [ "${flag%% *}" = --df ]; then
    check "$name: document-frequency table ($(wc -l < "$spark.df") lines)" "$work/local/$format.df" "$spark.df"
  fi
  [ "$format" = graphs ] || [ "$format" = marked ] || check "$name: fingerprints" "$(fingerprints_of "$format" "$flag")" "$spark.fingerprints"
  LC_ALL=C sort "$local.pairs" > "$local.sorted"
  LC_ALL=C sort "$spark.pairs" > "$spark.sorted"
  check "$name: sorted pairs ($(wc -l < "$spark.pairs") pairs)" "$local.sorted" "$spark.sorted"
  check "$name: pairs in sh-pairs' order" "$local.pairs" "$spark.pairs"
  check "$name: clusters, byte for byte ($(wc -l < "$spark.clusters") clusters)" "$local.clusters" "$spark.clusters"
  check "$name: duplicates ($(wc -l < "$spark.duplicates") ids)" "$local.duplicates" "$spark.duplicates"
  check "$name: labels" "$local.labels" "$spark.labels"
  check "$name: kept documents ($(wc -l < "$spark.kept") of $(wc -l < "$(input_of "$format")"))" "$local.kept" "$spark.kept"
  # Meaningful data: identical and near fingerprints in each run, clusters and the graphs' shapes.
  if [ "$format" = graphs ] || [ "$format" = marked ]; then
    sizes="$(awk -F'\t' '{ print NF }' "$local.clusters" | sort -n | tr '\n' ' ')"
    [ "$sizes" = "151 151 151 151 2000 3000 4050 " ] || fail "$name: the graphs' clusters are not 4 stars, 2 chains and the giant: $sizes"
  else
    [ "$(awk -F'\t' '$3 == 0' "$spark.pairs" | wc -l)" -ge 20 ] || fail "too few identical pairs: $name"
    [ "$(awk -F'\t' '$3 > 0' "$spark.pairs" | wc -l)" -ge 20 ] || fail "too few near pairs: $name"
    [ "$(wc -l < "$spark.clusters")" -ge 20 ] || fail "too few clusters: $name"
  fi
done
check "ids-b6-k3-p2: the clusters file on the driver (--clusters)" "$work/local/ids-b6-k3-p2.clusters" "$work/spark/ids-b6-k3-p2.file"
# The components algorithm must have had work to do on the chains: many rounds.
rounds="$(grep -o 'clusters ([0-9]* rounds' "$work/spark.log" | grep -o '[0-9]* rounds' | sort -n | tail -n 1)"
echo "most rounds of the components algorithm in a run: $rounds"
elapsed=$((SECONDS - started))
echo "Spark runs on the standalone cluster against the local pipeline, ${elapsed} s:"
echo "spark: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
