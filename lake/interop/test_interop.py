"""Interop tests: tables lake writes are read by delta-rs (deltalake) with
the same contents, and tables delta-rs writes are read by lake identically.
Run through run.sh, which installs deltalake, pyarrow and pytest."""
import datetime
import json
import subprocess

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from interop_rows import arrow_rows, lakectl_rows


@pytest.mark.parametrize("scenario", ["append", "partitioned", "overwrite", "merge",
                                      "checkpoint", "optimize", "complete"])
def test_delta_rs_reads_lake_tables(lakectl, tmp_path, scenario):
    path = str(tmp_path / scenario)
    want = lakectl_rows(lakectl, "write", path, scenario)
    dt = DeltaTable(path)
    got = arrow_rows(dt.to_pyarrow_table())
    assert len(got) == len(want)
    assert got == want
    # Our reader agrees with what we wrote.
    assert lakectl_rows(lakectl, "read", path) == want
    if scenario == "partitioned":
        assert dt.metadata().partition_columns == ["part"]
        part_a = arrow_rows(dt.to_pyarrow_table(filters=[("part", "=", "c/d=e")]))
        assert part_a == [r for r in want if json.loads(r)["part"] == "c/d=e"]
    if scenario == "checkpoint":
        # delta-rs must also be able to load the table from our checkpoint
        # alone; time travel to a version before it still works.
        assert arrow_rows(DeltaTable(path, version=3).to_pyarrow_table()) == \
            lakectl_rows(lakectl, "read", path, "3")
        # With the commits before the checkpoint at 10 cleaned up, both
        # readers must reconstruct the table from our checkpoint.
        import os
        import shutil
        copy = str(tmp_path / "checkpoint-only")
        shutil.copytree(path, copy)
        for v in range(10):
            os.remove(os.path.join(copy, "_delta_log", f"{v:020d}.json"))
        assert arrow_rows(DeltaTable(copy).to_pyarrow_table()) == want
        assert lakectl_rows(lakectl, "read", copy) == want


def source_table(lo, n, ts_tz="UTC"):
    ids = list(range(lo, lo + n))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"n{i % 11}" for i in ids], pa.string()),
        "value": pa.array([i / 4 for i in ids], pa.float64()),
        "n32": pa.array([i % 1000 for i in ids], pa.int32()),
        "flag": pa.array([i % 2 == 0 for i in ids], pa.bool_()),
        "day": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 30) for i in ids], pa.date32()),
        "ts": pa.array([1_700_000_000_000_000 + i * 1_000_003 for i in ids], pa.timestamp("us", tz=ts_tz)),
        "part": pa.array([None if i % 5 == 0 else f"p {i % 3}/x" for i in ids], pa.string()),
    })


def check_same(lakectl, path, version=None):
    dt = DeltaTable(path, version=version)
    want = arrow_rows(dt.to_pyarrow_table())
    args = ["read", path] + ([str(version)] if version is not None else [])
    assert lakectl_rows(lakectl, *args) == want
    return want


@pytest.mark.parametrize("partitioned", [False, True])
def test_lake_reads_delta_rs_tables(lakectl, tmp_path, partitioned):
    path = str(tmp_path / "t")
    part = ["part"] if partitioned else None
    write_deltalake(path, source_table(0, 200), partition_by=part)
    write_deltalake(path, source_table(200, 100), mode="append", partition_by=part)
    check_same(lakectl, path)
    write_deltalake(path, source_table(1000, 150), mode="overwrite", partition_by=part)
    assert len(check_same(lakectl, path)) == 150
    check_same(lakectl, path, version=1)  # time travel before the overwrite
    src = source_table(1100, 100)  # 50 updates, 50 inserts
    src = src.set_column(2, "value", pa.array([-1.5] * 100, pa.float64()))
    (DeltaTable(path).merge(src, predicate="t.id = s.id", source_alias="s", target_alias="t")
     .when_matched_update_all().when_not_matched_insert_all().execute())
    rows = check_same(lakectl, path)
    assert len(rows) == 200
    # A delta-rs checkpoint is read too.
    DeltaTable(path).create_checkpoint()
    write_deltalake(path, source_table(5000, 10), mode="append", partition_by=part)
    assert len(check_same(lakectl, path)) == 210


def test_lake_reads_timestamp_ntz(lakectl, tmp_path):
    path = str(tmp_path / "ntz")
    write_deltalake(path, source_table(0, 50, ts_tz=None))
    check_same(lakectl, path)


def test_concurrent_writers(lakectl, tmp_path):
    path = str(tmp_path / "concurrent")
    subprocess.run([lakectl, "create", path], check=True)
    writers, commits = 2, 15
    procs = [subprocess.Popen([lakectl, "append", path, str(w), str(commits)]) for w in range(1, writers + 1)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    dt = DeltaTable(path)
    ids = dt.to_pyarrow_table(columns=["id"]).column("id").to_pylist()
    want = [w * 1_000_000 + c * 10 + i for w in range(1, writers + 1) for c in range(commits) for i in range(10)]
    assert sorted(ids) == sorted(want)  # every row exactly once
    assert dt.version() == writers * commits
    assert len(lakectl_rows(lakectl, "read", path)) == len(want)


@pytest.mark.parametrize("scenario", ["append", "partitioned", "overwrite", "merge",
                                      "checkpoint", "optimize", "complete"])
def test_spark_reads_lake_tables(spark, lakectl, tmp_path, scenario):
    """Spark with delta-spark reads what lake writes, row for row (and at
    an older version across our checkpoint)."""
    path = str(tmp_path / scenario)
    want = lakectl_rows(lakectl, "write", path, scenario)
    got = arrow_rows(spark.read.format("delta").load(path).toArrow())
    assert got == want
    if scenario == "checkpoint":
        old = spark.read.format("delta").option("versionAsOf", 3).load(path)
        assert arrow_rows(old.toArrow()) == lakectl_rows(lakectl, "read", path, "3")
