#!/bin/sh
# Runs the lake interop tests (delta-rs <-> lake) with pytest.
# Needs: python3 with the venv module, network access to PyPI on first run
# (deltalake, pyarrow, pytest), and Go on PATH (builds ./lakectl).
# The virtual environment lives in $VENV (default: <module root>/.venv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${VENV:-$root/.venv}
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import deltalake, pyarrow, pytest' 2>/dev/null; then
	"$venv/bin/pip" install --quiet deltalake pyarrow pytest
fi
cd "$root"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here" "$@"
