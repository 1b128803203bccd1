#!/bin/sh
# Creates the virtual environment the Spark differential check uses
# (.venv-spark, gitignored) with PySpark from PyPI. Idempotent; needs python3
# with venv, Java 17 and PyPI on first run. Kept apart from .venv so that the
# regular tests never install Spark (about 450 MB).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${SPARK_VENV:-$root/.venv-spark}
version=${PYSPARK_VERSION:-4.3.0}
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$version')" 2>/dev/null; then
	"$venv/bin/pip" install --quiet "pyspark==$version"
fi
