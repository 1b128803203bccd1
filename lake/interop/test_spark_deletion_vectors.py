"""Interop tests: tables that Spark (delta-spark) writes with deletion
vectors -- DELETE, UPDATE and MERGE, over several versions, partitioned,
with checkpoints, and one whose DV needs bitmap and run containers -- read
back by lake (through lakectl) with Spark's row counts and contents at every
version, and stream through lake's Delta source as through Spark's.

Spark 4.4's Delta writer stores every deletion vector in a file (storage
type 'u'; several DVs of one commit packed into one file at increasing
offsets); it never writes inline ('i') ones, which the Go unit tests cover
(lake/dv_test.go)."""
import glob
import json
import os
import shutil
import subprocess

import pytest

pyspark = pytest.importorskip("pyspark")
delta = pytest.importorskip("delta")


# The spark fixture is conftest.py's session-wide one.


def norm(v):
    if isinstance(v, float) and v.is_integer():
        return int(v)  # Go's JSON prints 2.0 as 2
    return v


def canon(rows):
    """Rows as a sorted list of canonical JSON strings."""
    return sorted(json.dumps({k: norm(v) for k, v in r.items()}, sort_keys=True) for r in rows)


def spark_rows(spark, path, version=None):
    reader = spark.read.format("delta")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    return canon(r.asDict() for r in reader.load(path).collect())


def run_lakectl(lakectl_bin, *args):
    """Runs lakectl; returns (rows or None, stderr)."""
    p = subprocess.run([lakectl_bin, *args], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr
    return canon(json.loads(p.stdout)), p.stderr


def lake_rows(lakectl_bin, path, version=None):
    args = ["read", path] + ([str(version)] if version is not None else [])
    rows, err = run_lakectl(lakectl_bin, *args)
    assert rows is not None, err
    return rows


def log_actions(path):
    """Every action of the table's JSON commits, by version."""
    out = {}
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        v = int(os.path.basename(f).split(".")[0])
        with open(f) as fh:
            out[v] = [json.loads(line) for line in fh if line.strip()]
    return out


def dvs(path):
    """The deletion vector descriptors the table's commits add."""
    return [a["add"]["deletionVector"] for acts in log_actions(path).values()
            for a in acts if "add" in a and a["add"].get("deletionVector")]


def latest_version(path):
    return max(log_actions(path))


def assert_every_version(spark, lakectl_bin, path):
    for v in range(latest_version(path) + 1):
        want = spark_rows(spark, path, v)
        got = lake_rows(lakectl_bin, path, v)
        assert len(got) == len(want), f"version {v}: lake read {len(got)} rows, Spark {len(want)}"
        assert got == want, f"version {v}"
    assert lake_rows(lakectl_bin, path) == spark_rows(spark, path)


@pytest.fixture(scope="module")
def dml_table(spark, tmp_path_factory):
    """An unpartitioned table with DVs from DELETE (twice on the same
    files), UPDATE and MERGE, and a Spark checkpoint every 3 commits."""
    path = str(tmp_path_factory.mktemp("spark-dv") / "dml")
    (spark.range(0, 3000).selectExpr("id", "cast(id % 5 as string) as s", "cast(id as double) * 0.5 as x")
     .repartition(3).write.format("delta")
     .option("delta.enableDeletionVectors", "true")
     .option("delta.checkpointInterval", "3")
     .save(path))
    t = f"delta.`{path}`"
    spark.sql(f"DELETE FROM {t} WHERE id % 7 = 0")            # v1: DVs on each file
    spark.sql(f"DELETE FROM {t} WHERE id % 11 = 0")           # v2: the same files, bigger DVs
    spark.sql(f"UPDATE {t} SET s = 'u' WHERE id % 13 = 0")    # v3: DVs + a file of new rows
    spark.range(2900, 3100).selectExpr("id", "'m' as s", "cast(id as double) * 2 as x") \
        .createOrReplaceTempView("src")
    spark.sql(f"""MERGE INTO {t} t USING src ON t.id = src.id
                  WHEN MATCHED AND t.id % 2 = 0 THEN DELETE
                  WHEN MATCHED THEN UPDATE SET *
                  WHEN NOT MATCHED THEN INSERT *""")          # v4
    spark.range(5000, 5100).selectExpr("id", "'a' as s", "cast(0 as double) as x") \
        .write.format("delta").mode("append").save(path)      # v5: an append
    spark.sql(f"DELETE FROM {t} WHERE id = 5005")             # v6: a DV on the appended file
    return path


def test_spark_dml_with_deletion_vectors(spark, lakectl, dml_table):
    path = dml_table
    ops = [a["commitInfo"]["operation"] for acts in log_actions(path).values()
           for a in acts if "commitInfo" in a]
    assert ops[1:] == ["DELETE", "DELETE", "UPDATE", "MERGE", "WRITE", "DELETE"], ops
    descs = dvs(path)
    assert descs and all(d["storageType"] == "u" for d in descs), descs
    assert os.path.exists(os.path.join(path, "_delta_log", "00000000000000000003.checkpoint.parquet")), \
        "the scenario should make Spark write a checkpoint holding DVs"
    assert_every_version(spark, lakectl, path)
    # A checkpoint lake writes keeps the DVs: with the commits before it
    # gone, Spark and lake both rebuild the table from it alone.
    copy = path + "-lake-checkpoint"
    shutil.copytree(path, copy)
    subprocess.run([lakectl, "checkpoint", copy], check=True)
    last = latest_version(copy)
    for v in range(last):
        os.remove(os.path.join(copy, "_delta_log", f"{v:020d}.json"))
    want = spark_rows(spark, path)
    assert spark_rows(spark, copy) == want
    assert lake_rows(lakectl, copy) == want


def test_spark_partitioned_deletion_vectors(spark, lakectl, tmp_path):
    path = str(tmp_path / "partitioned")
    (spark.range(0, 2000).selectExpr("id", "cast(id % 4 as string) as p", "id % 10 as k")
     .write.format("delta").partitionBy("p")
     .option("delta.enableDeletionVectors", "true").save(path))
    t = f"delta.`{path}`"
    spark.sql(f"DELETE FROM {t} WHERE k = 3")                 # one DV per partition's file
    spark.sql(f"UPDATE {t} SET k = 100 WHERE id % 9 = 0")
    spark.sql(f"DELETE FROM {t} WHERE p = '1' AND id < 500")
    descs = dvs(path)
    # Spark packs the DVs of a commit into one file: offsets past the first.
    assert any(d.get("offset", 1) > 1 for d in descs), descs
    assert_every_version(spark, lakectl, path)


def test_spark_large_deletion_vector(spark, lakectl, tmp_path):
    """A DV of one file holding scattered rows (bitmap containers) and a
    long range (a run container) across several 64K blocks."""
    path = str(tmp_path / "large")
    (spark.range(0, 200000).selectExpr("id", "id % 97 as k").coalesce(1)
     .write.format("delta").option("delta.enableDeletionVectors", "true").save(path))
    spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 3 = 0 OR id BETWEEN 70000 AND 140000")
    (d,) = dvs(path)
    assert d["storageType"] == "u" and d["cardinality"] > 80000 and d["sizeInBytes"] > 8192, d
    assert_every_version(spark, lakectl, path)
    # A second DELETE replaces the DV of the same file.
    spark.sql(f"DELETE FROM delta.`{path}` WHERE k = 5")
    assert_every_version(spark, lakectl, path)


def spark_stream_rows(spark, path, checkpoint, **options):
    """Rows a Spark stream over the table yields with Trigger.AvailableNow,
    or the exception it fails with."""
    name = "q" + os.path.basename(checkpoint).replace("-", "_")
    reader = spark.readStream.format("delta")
    for k, v in options.items():
        reader = reader.option(k, v)
    q = (reader.load(path).writeStream.format("memory").queryName(name)
         .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    try:
        q.awaitTermination()
    except Exception as e:  # the stream's failure, raised here
        return e
    return canon(r.asDict() for r in spark.sql(f"SELECT * FROM {name}").collect())


def test_streaming_over_deletion_vectors(spark, lakectl, dml_table, tmp_path):
    """Spark's Delta source reads its starting snapshot with DVs applied,
    fails on a later commit that deletes or updates rows with DVs (a remove
    and an add of the same file) unless skipChangeCommits skips it; lake's
    source does the same."""
    path = dml_table
    # From the latest snapshot: DVs applied.
    want = spark_stream_rows(spark, path, str(tmp_path / "latest"))
    got, err = run_lakectl(lakectl, "stream", path)
    assert got is not None, err
    assert got == want == spark_rows(spark, path)
    # From version 0, skipping change commits: the appends only.
    want = spark_stream_rows(spark, path, str(tmp_path / "skip"),
                             startingVersion="0", skipChangeCommits="true")
    got, err = run_lakectl(lakectl, "stream", path, "--from", "0", "--skip-change-commits")
    assert got is not None, err
    assert len(got) == len(want) == 3100 and got == want
    # From version 0 without skipping: both fail at the first DELETE.
    failure = spark_stream_rows(spark, path, str(tmp_path / "fail"), startingVersion="0")
    assert isinstance(failure, Exception), "Spark streamed over a DV delete"
    assert "DELTA_SOURCE_TABLE_IGNORE_CHANGES" in str(failure) or "ignoreChanges" in str(failure), failure
    got, err = run_lakectl(lakectl, "stream", path, "--from", "0")
    assert got is None and "version 1" in err and "not append-only" in err, err
