#!/usr/bin/env bash
# Side-by-side Nexmark runs on this machine over the same events:
#   Millrace   go run ./cmd/millrace bench nexmark (generates the events itself)
#   Spark      Structured Streaming, local[CORES], file source over the
#              exported Parquet, maxFilesPerTrigger=1, noop sink
#   DuckDB     batch SQL over the same Parquet (a ceiling, not a stream)
# then prints events/s, events/s per core and Millrace's ratio per query.
# On demand only (not CI). Environment knobs, with their defaults:
#   EVENTS=1000000 CORES=2 QUERIES=q0,q1,q2,q3,q11,q12 SEED=1 RATE=100000
#   (QUERIES may also name q4, q5, q7, q8)
#   (q3 and q8 also export person/ and auction/, q4 auction/)
# q4, q5, q7 and q8 need RATE=100000 (their default in bench/nexmark) so
# that 10 s windows and auctions close within the run.
#   PER_TRIGGER=1000000 DATA=/tmp/nexmark-compare-$EVENTS-$SEED-$RATE
#   OUT=/tmp/nexmark-compare-results-<time> VENV=bench/compare/.venv
#   ENGINES="millrace spark duckdb" SPARK_MEMORY=4g (driver heap: all of
#   local-mode Spark; q7's raw-bid join state overflows 2g at 10M events)
# RATE defaults to the reference's second harness (100K events/s of event
# time): at 10M/s, 10M events span 1 s and q11 closes no session.
# With CORES below the machine's cores every engine runs under
# taskset -c 0-(CORES-1).
#
#   bench/compare/run.sh                       # 1M events, all queries
#   EVENTS=10000000 QUERIES=q0,q1,q2 bench/compare/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."   # repository root

EVENTS=${EVENTS:-1000000}
CORES=${CORES:-2}
QUERIES=${QUERIES:-q0,q1,q2,q3,q11,q12}
SEED=${SEED:-1}
RATE=${RATE:-100000}
PER_TRIGGER=${PER_TRIGGER:-1000000}
DATA=${DATA:-/tmp/nexmark-compare-$EVENTS-$SEED-$RATE}
OUT=${OUT:-/tmp/nexmark-compare-results-$(date +%Y%m%d-%H%M%S)}
VENV=${VENV:-bench/compare/.venv}
ENGINES=${ENGINES:-millrace spark duckdb}
SPARK_MEMORY=${SPARK_MEMORY:-4g}

PIN=()
if [ "$CORES" -lt "$(nproc)" ]; then PIN=(taskset -c "0-$((CORES - 1))"); fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV (pyspark, duckdb from PyPI; Spark needs Java 17+)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r bench/compare/requirements.txt
fi
PY="$VENV/bin/python"
mkdir -p "$OUT"

if [ ! -f "$DATA/manifest.json" ]; then
  echo "== exporting $EVENTS events (seed $SEED, rate $RATE) to $DATA" >&2
  go run ./bench/compare/export --events "$EVENTS" --per-file "$PER_TRIGGER" \
    --seed "$SEED" --rate "$RATE" --out "$DATA"
fi
# q3 and q8 read persons and auctions, q4 auctions (and bids): the same
# event positions, exported by kind to $DATA/person and $DATA/auction (one
# file per PER_TRIGGER positions).
KINDS=()
if [[ ",$QUERIES," =~ ,(q3|q8), ]]; then KINDS+=(person); fi
if [[ ",$QUERIES," =~ ,(q3|q4|q8), ]]; then KINDS+=(auction); fi
if [ ${#KINDS[@]} -gt 0 ]; then
  for kind in "${KINDS[@]}"; do
    if [ ! -f "$DATA/$kind/manifest.json" ]; then
      echo "== exporting the ${kind}s of $EVENTS events to $DATA/$kind" >&2
      go run ./bench/compare/export --events "$EVENTS" --per-file "$PER_TRIGGER" \
        --seed "$SEED" --rate "$RATE" --kind "$kind" --out "$DATA/$kind"
    fi
  done
fi

for e in $ENGINES; do
  case $e in
  millrace)
    echo "== millrace" >&2
    go build -o "$OUT/millrace" ./cmd/millrace
    "${PIN[@]}" "$OUT/millrace" bench nexmark --query "$QUERIES" --events "$EVENTS" \
      --parallelism "$CORES" --rate "$RATE" --per-trigger "$PER_TRIGGER" --seed "$SEED" \
      --format json --quiet > "$OUT/millrace.json"
    ;;
  spark)
    echo "== spark" >&2
    (cd bench/compare && "${PIN[@]}" "$PY" spark_nexmark.py --dir "$DATA" --cores "$CORES" \
      --queries "$QUERIES" --files-per-trigger 1 --memory "$SPARK_MEMORY") > "$OUT/spark.jsonl" 2> "$OUT/spark.log" ||
      { echo "spark failed, see $OUT/spark.log" >&2; tail -5 "$OUT/spark.log" >&2; }
    ;;
  duckdb)
    echo "== duckdb" >&2
    (cd bench/compare && "${PIN[@]}" "$PY" duckdb_nexmark.py --dir "$DATA" --threads "$CORES" \
      --queries "$QUERIES") > "$OUT/duckdb.jsonl"
    ;;
  esac
done

"$PY" bench/compare/summarize.py "$OUT" | tee "$OUT/summary.txt"
echo "results in $OUT" >&2
