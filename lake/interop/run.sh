#!/bin/sh
# Runs the lake interop tests with pytest: delta-rs <-> lake (on local disk
# and on moto's S3 server, test_s3_interop.py), Spark with delta-spark <->
# lake, and data skipping by lake's stats in all three.
# Needs: python3 with the venv module, network access to PyPI on first run
# (scripts/venv.sh installs deltalake, pyarrow, pytest, pyspark and
# delta-spark), Maven Central on the first Spark start (the delta-spark
# jar), Java 17 for Spark, and Go on PATH (builds ./lakectl and millrace).
# Without Java or PySpark the Spark tests are skipped, unless
# MILLRACE_REQUIRE_SPARK=1 (CI) makes that a failure.
# The virtual environment lives in $VENV (default: <module root>/.venv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${VENV:-$root/.venv}
VENV=$venv sh "$root/scripts/venv.sh"
cd "$root"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here" "$@"
