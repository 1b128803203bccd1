#!/usr/bin/env bash
# The fair comparison: Nexmark over the same exported Parquet files, side by
# side on this machine, each engine pinned to 1 core, then to 2 (CORES):
#   millrace      millrace bench nexmark --source parquet: the file source,
#                 one file per trigger (MaxFilesPerTrigger 1), AvailableNow
#   millrace-gen  millrace bench nexmark from its generator (the same events
#                 generated in memory: the figures of BENCHMARKS.md)
#   spark         Structured Streaming, local[CORES], file source,
#                 maxFilesPerTrigger=1, availableNow, noop sink
#   duckdb        batch SQL over all the files (a ceiling, not a stream)
#   flink         PyFlink streaming, filesystem Parquet source, blackhole sink
# then prints per query, cores and engine: events per CPU-second, Millrace's
# ratio to each engine, output rows (flagged when they differ from
# Millrace's) and peak RSS.
# On demand only (not CI). Environment knobs, with their defaults:
#   EVENTS=1000000 CORES="1 2" QUERIES=q0,q1,q2,q5-window,q7-window,q5,q7 SEED=1 RATE=100000
#   PER_TRIGGER=1000000 (events per file and per Millrace trigger)
#   ENGINES="millrace millrace-gen spark duckdb flink"
#   DATA=/tmp/nexmark-compare-$EVENTS-$SEED-$RATE-$PER_TRIGGER
#   OUT=/tmp/nexmark-compare-results-<time> VENV=bench/compare/.venv
#   FLINK_VENV=bench/compare/.venv-flink FLINK_JARS=bench/compare/.flink-jars
#   SPARK_MEMORY=4g (driver heap: all of local-mode Spark)
#   WARMUP=1: Millrace runs each query twice in its process and the second
#   run is timed, as DuckDB, Spark and Flink are timed after a warm-up run
#   (WARMUP=0: the first, cold run: the heap grown and faulted in, the page
#   buffers allocated)
# QUERIES may also name q3, q4, q8, q11, q12 for Millrace, Spark and DuckDB
# (q3 and q8 also export person/ and auction/, q4 auction/); Flink runs
# q0, q1, q2, q5-window, q7-window, q5 and q7. q5-window and q7-window are
# q5's and q7's window aggregations alone, without their join-backs.
# q5 and q7 need windows that close within the run: RATE=100000 at 10M
# events is 100 s of event time; at 1M events use RATE=10000 for the same.
#
#   bench/compare/run.sh                                  # 1M events, 1 and 2 cores
#   EVENTS=10000000 bench/compare/run.sh                  # the issue's scale
#   EVENTS=1000000 RATE=10000 PER_TRIGGER=250000 CORES="1 2" bench/compare/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."   # repository root

EVENTS=${EVENTS:-1000000}
CORES=${CORES:-1 2}
QUERIES=${QUERIES:-q0,q1,q2,q5-window,q7-window,q5,q7}
SEED=${SEED:-1}
RATE=${RATE:-100000}
PER_TRIGGER=${PER_TRIGGER:-1000000}
DATA=${DATA:-/tmp/nexmark-compare-$EVENTS-$SEED-$RATE-$PER_TRIGGER}
OUT=${OUT:-/tmp/nexmark-compare-results-$(date +%Y%m%d-%H%M%S)}
VENV=${VENV:-bench/compare/.venv}
FLINK_VENV=${FLINK_VENV:-bench/compare/.venv-flink}
WARMUP=${WARMUP:-1}
FLINK_JARS=${FLINK_JARS:-bench/compare/.flink-jars}
ENGINES=${ENGINES:-millrace millrace-gen spark duckdb flink}
SPARK_MEMORY=${SPARK_MEMORY:-4g}
# PyFlink 2.3 (PyPI) and the jars its Parquet format needs (Maven Central):
# flink-sql-parquet bundles parquet-hadoop, which needs Hadoop's classes.
FLINK_VERSION=${FLINK_VERSION:-2.3.0}
HADOOP_VERSION=${HADOOP_VERSION:-3.3.6}

abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
VENV=$(abs "$VENV") FLINK_VENV=$(abs "$FLINK_VENV") FLINK_JARS=$(abs "$FLINK_JARS") DATA=$(abs "$DATA") OUT=$(abs "$OUT")

has() { [[ " $ENGINES " == *" $1 "* ]]; }

if { has spark || has duckdb; } && [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV (pyspark, duckdb from PyPI; Spark needs Java 17+)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r bench/compare/requirements.txt
fi
if has flink; then
  if [ ! -x "$FLINK_VENV/bin/python" ]; then
    echo "== creating $FLINK_VENV (apache-flink $FLINK_VERSION from PyPI; Python 3.9-3.12, Java 17)" >&2
    python3 -m venv "$FLINK_VENV"
    "$FLINK_VENV/bin/pip" install -q "apache-flink==$FLINK_VERSION"
  fi
  for a in "org.apache.flink:flink-sql-parquet:$FLINK_VERSION" \
    "org.apache.hadoop:hadoop-client-api:$HADOOP_VERSION" \
    "org.apache.hadoop:hadoop-client-runtime:$HADOOP_VERSION"; do
    IFS=: read -r _ art ver <<<"$a"
    if [ ! -f "$FLINK_JARS/$art-$ver.jar" ]; then
      echo "== fetching $a (mvn, Maven Central)" >&2
      mvn -q -B dependency:copy -Dartifact="$a" -DoutputDirectory="$FLINK_JARS" -Dtransitive=false >&2
    fi
  done
fi
mkdir -p "$OUT"

if [ ! -f "$DATA/manifest.json" ]; then
  echo "== exporting $EVENTS events (seed $SEED, rate $RATE, $PER_TRIGGER per file) to $DATA" >&2
  go run ./bench/compare/export --events "$EVENTS" --per-file "$PER_TRIGGER" \
    --seed "$SEED" --rate "$RATE" --out "$DATA"
fi
# q3 and q8 read persons and auctions, q4 auctions (and bids): the same
# event positions, exported by kind to $DATA/person and $DATA/auction.
KINDS=()
if [[ ",$QUERIES," =~ ,(q3|q8), ]]; then KINDS+=(person); fi
if [[ ",$QUERIES," =~ ,(q3|q4|q8), ]]; then KINDS+=(auction); fi
for kind in ${KINDS[@]+"${KINDS[@]}"}; do
  if [ ! -f "$DATA/$kind/manifest.json" ]; then
    echo "== exporting the ${kind}s of $EVENTS events to $DATA/$kind" >&2
    go run ./bench/compare/export --events "$EVENTS" --per-file "$PER_TRIGGER" \
      --seed "$SEED" --rate "$RATE" --kind "$kind" --out "$DATA/$kind"
  fi
done
if has millrace || has millrace-gen; then go build -o "$OUT/millrace" ./cmd/millrace; fi

# Millrace runs one process per query, so that each query's peak RSS is
# its own; the JSON arrays are concatenated (one object per line).
millrace_run() { # name, extra flags...
  local name=$1; shift
  for q in ${QUERIES//,/ }; do
    local runs=$q
    if [[ $WARMUP == 1 ]]; then runs=$q,$q; fi
    "${PIN[@]}" "$OUT/millrace" bench nexmark --query "$runs" --parallelism "$c" --seed "$SEED" \
      --format json --quiet "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)[-1]  # the last run: after the warm-up, if any
r["engine"] = sys.argv[1]; print(json.dumps(r))' "$name" >> "$OUT/$c/$name.jsonl" ||
      echo "millrace ($name) $q failed" >&2
  done
}

for c in $CORES; do
  PIN=(taskset -c "0-$((c - 1))")
  mkdir -p "$OUT/$c"
  for e in $ENGINES; do
    echo "== $e, $c core(s)" >&2
    case $e in
    millrace)
      millrace_run millrace --source parquet --path "$DATA" --files-per-trigger 1
      ;;
    millrace-gen)
      millrace_run millrace-gen --events "$EVENTS" --rate "$RATE" --per-trigger "$PER_TRIGGER"
      ;;
    spark)
      (cd bench/compare && "${PIN[@]}" "$VENV/bin/python" spark_nexmark.py --dir "$DATA" --cores "$c" \
        --queries "$QUERIES" --files-per-trigger 1 --memory "$SPARK_MEMORY") > "$OUT/$c/spark.jsonl" 2> "$OUT/$c/spark.log" ||
        { echo "spark failed, see $OUT/$c/spark.log" >&2; tail -5 "$OUT/$c/spark.log" >&2; }
      ;;
    duckdb)
      (cd bench/compare && "${PIN[@]}" "$VENV/bin/python" duckdb_nexmark.py --dir "$DATA" --threads "$c" \
        --queries "$QUERIES") > "$OUT/$c/duckdb.jsonl" 2> "$OUT/$c/duckdb.log" ||
        { echo "duckdb failed, see $OUT/$c/duckdb.log" >&2; tail -5 "$OUT/$c/duckdb.log" >&2; }
      ;;
    flink)
      (cd bench/compare && "${PIN[@]}" "$FLINK_VENV/bin/python" flink_nexmark.py --dir "$DATA" --cores "$c" \
        --jars "$FLINK_JARS" --queries "$QUERIES") > "$OUT/$c/flink.jsonl" 2> "$OUT/$c/flink.log" ||
        { echo "flink failed, see $OUT/$c/flink.log" >&2; tail -5 "$OUT/$c/flink.log" >&2; }
      ;;
    *) echo "unknown engine $e (millrace millrace-gen spark duckdb flink)" >&2 ;;
    esac
  done
done

python3 bench/compare/summarize.py "$OUT" | tee "$OUT/summary.txt"
echo "results in $OUT" >&2
