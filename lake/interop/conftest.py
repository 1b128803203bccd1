"""Fixtures of the lake interop tests: a lakectl binary built once."""
import os
import pathlib
import subprocess

import pytest

MODULE_ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def lakectl(tmp_path_factory):
    """Path of the lakectl helper, built from ./lakectl with the module's Go."""
    out = tmp_path_factory.mktemp("bin") / "lakectl"
    subprocess.run(["go", "build", "-o", str(out), "./lake/interop/lakectl"],
                   cwd=MODULE_ROOT, check=True)
    return str(out)
