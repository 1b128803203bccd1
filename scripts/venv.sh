#!/bin/sh
# Creates the project's Python virtual environment (.venv, gitignored) with
# the packages tests use as independent readers and servers: deltalake
# (delta-rs), pyarrow, pytest, moto's S3 server (moto[server]; package
# internal/s3test runs its moto_server as the S3-compatible server of the
# storage tests), and PySpark with delta-spark for the Spark side of the
# Delta interop tests (lake/interop; delta-spark 4.4.0 with pyspark 4.2.0
# is a pair whose jar resolves from Maven Central; the jar itself is
# fetched through ivy when the tests start their Spark session, and Spark
# needs a Java 17 runtime). Idempotent; needs python3 with venv and PyPI on
# first run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${VENV:-$root/.venv}
pyspark_version=4.2.0
delta_spark_version=4.4.0
moto_version=5.2.5
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import deltalake, pyarrow, pytest' 2>/dev/null; then
	"$venv/bin/pip" install --quiet deltalake pyarrow pytest
fi
if [ ! -x "$venv/bin/moto_server" ]; then
	"$venv/bin/pip" install --quiet "moto[server]==$moto_version"
fi
if ! "$venv/bin/python" -c "
import sys, importlib.metadata as m
sys.exit(m.version('pyspark') != '$pyspark_version' or m.version('delta-spark') != '$delta_spark_version')" 2>/dev/null; then
	"$venv/bin/pip" install --quiet "pyspark==$pyspark_version" "delta-spark==$delta_spark_version"
fi
