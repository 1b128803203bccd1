#!/bin/sh
# Runs every fuzz target of the repository, one at a time, for FUZZTIME each
# (default 10m), niced and with one worker, so that it can run beside other
# work. Usage: scripts/fuzz.sh [target-regexp]   (FUZZTIME=30s scripts/fuzz.sh Offset)
# New inputs that widen coverage are minimized for at most FUZZMINIMIZETIME
# (default 10s, Go's is 60s): with large seeds such as Parquet files, one
# worker otherwise spends most of its time minimizing instead of fuzzing.
# A crash or hang stops the run with the failing input written under the
# package's testdata/fuzz/<Target>/, which the regular tests then replay:
# fix the defect, keep the input, and run again. See docs/ARCHITECTURE.md,
# "Fuzzing".
set -e
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
minimize=${FUZZMINIMIZETIME:-10s}
filter=${1:-.}
grep -l '^func Fuzz' $(git ls-files '*_test.go') | while read -r f; do
	pkg=./$(dirname "$f")
	for t in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
		echo "$pkg $t"
	done
done | grep -E "$filter" | sort | while read -r pkg t; do
	echo "== $t ($pkg, $fuzztime)"
	nice go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel 1 "$pkg"
done
