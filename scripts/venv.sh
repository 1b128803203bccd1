#!/bin/sh
# Creates the project's Python virtual environment (.venv, gitignored) with
# the packages tests use as independent readers: deltalake (delta-rs),
# pyarrow, pytest. Idempotent; needs python3 with venv and PyPI on first run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${VENV:-$root/.venv}
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import deltalake, pyarrow, pytest' 2>/dev/null; then
	"$venv/bin/pip" install --quiet deltalake pyarrow pytest
fi
