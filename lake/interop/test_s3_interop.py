"""Interop on S3: a table lake writes to the moto S3 server is read by
delta-rs (deltalake) from S3 row for row as lake reads it, and a table
delta-rs writes there (with conditional put, If-None-Match: *) is read by
lake identically. moto_server comes from the same virtual environment as
deltalake (scripts/venv.sh installs moto[server])."""
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest
from deltalake import DeltaTable, write_deltalake

from interop_rows import arrow_rows, lakectl_rows
from test_interop import source_table

KEY, SECRET = "millrace-test", "millrace-test-secret"


@pytest.fixture(scope="session")
def s3_endpoint(tmp_path_factory):
    """URL of one moto S3 server on 127.0.0.1 for the whole run."""
    exe = pathlib.Path(sys.executable).parent / "moto_server"
    if not exe.exists():
        if os.environ.get("MILLRACE_REQUIRE_S3", "") not in ("", "0"):
            pytest.fail(f"{exe} is missing and MILLRACE_REQUIRE_S3 is set (run scripts/venv.sh)")
        pytest.skip(f"{exe} is missing (run scripts/venv.sh)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "w")
    proc = subprocess.Popen([str(exe), "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"moto_server did not start at {url}; see {log.name}")
            time.sleep(0.05)
    yield url
    proc.kill()
    proc.wait()
    log.close()


@pytest.fixture
def s3_bucket(s3_endpoint, monkeypatch):
    """A fresh bucket; the environment points lakectl (package storage) at
    the server. Returns (bucket, delta-rs storage_options)."""
    name = "interop-" + uuid.uuid4().hex[:12]
    req = urllib.request.Request(f"{s3_endpoint}/{name}", method="PUT")
    urllib.request.urlopen(req).close()
    for k, v in {"MILLRACE_S3_ENDPOINT": s3_endpoint, "AWS_ACCESS_KEY_ID": KEY,
                 "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1",
                 "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    opts = {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ALLOW_HTTP": "true",
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        # Commits with PUT If-None-Match: * (moto implements it), instead
        # of a DynamoDB lock or unsafe renames.
        "aws_conditional_put": "etag",
    }
    return name, opts


@pytest.mark.parametrize("scenario", ["partitioned", "merge", "checkpoint", "optimize", "complete"])
def test_delta_rs_reads_lake_tables_on_s3(lakectl, s3_bucket, scenario):
    bucket, opts = s3_bucket
    path = f"s3://{bucket}/tables/{scenario}"
    want = lakectl_rows(lakectl, "write", path, scenario)
    dt = DeltaTable(path, storage_options=opts)
    got = arrow_rows(dt.to_pyarrow_table())
    assert len(got) == len(want)
    assert got == want
    assert lakectl_rows(lakectl, "read", path) == want
    if scenario == "checkpoint":
        # Time travel across lake's checkpoint, by both readers.
        assert arrow_rows(DeltaTable(path, version=3, storage_options=opts).to_pyarrow_table()) == \
            lakectl_rows(lakectl, "read", path, "3")


@pytest.mark.parametrize("partitioned", [False, True])
def test_lake_reads_delta_rs_tables_on_s3(lakectl, s3_bucket, partitioned):
    bucket, opts = s3_bucket
    path = f"s3a://{bucket}/tables/t"  # Spark's scheme: delta-rs writes s3://, lake reads both
    rs_path = "s3" + path[3:]
    part = ["part"] if partitioned else None
    write_deltalake(rs_path, source_table(0, 200), partition_by=part, storage_options=opts)
    write_deltalake(rs_path, source_table(200, 100), mode="append", partition_by=part, storage_options=opts)
    DeltaTable(rs_path, storage_options=opts).create_checkpoint()
    write_deltalake(rs_path, source_table(1000, 50), mode="append", partition_by=part, storage_options=opts)
    dt = DeltaTable(rs_path, storage_options=opts)
    want = arrow_rows(dt.to_pyarrow_table())
    assert len(want) == 350
    assert lakectl_rows(lakectl, "read", path) == want
    assert lakectl_rows(lakectl, "read", path, "1") == \
        arrow_rows(DeltaTable(rs_path, version=1, storage_options=opts).to_pyarrow_table())
    # delta-rs reads the table from a checkpoint lake wrote on S3.
    subprocess.run([lakectl, "checkpoint", path], check=True)
    assert arrow_rows(DeltaTable(rs_path, storage_options=opts).to_pyarrow_table()) == want


def test_concurrent_lake_writers_on_s3(lakectl, s3_bucket):
    """Two lakectl processes append to one table on S3 at once; delta-rs
    then reads every row exactly once at version writers x commits."""
    bucket, opts = s3_bucket
    path = f"s3://{bucket}/tables/concurrent"
    subprocess.run([lakectl, "create", path], check=True)
    writers, commits = 2, 10
    procs = [subprocess.Popen([lakectl, "append", path, str(w), str(commits)]) for w in range(1, writers + 1)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    dt = DeltaTable(path, storage_options=opts)
    ids = dt.to_pyarrow_table(columns=["id"]).column("id").to_pylist()
    want = [w * 1_000_000 + c * 10 + i for w in range(1, writers + 1) for c in range(commits) for i in range(10)]
    assert sorted(ids) == sorted(want)
    assert dt.version() == writers * commits
