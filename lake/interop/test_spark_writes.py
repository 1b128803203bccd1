"""Spark with delta-spark writes tables (appends, MERGE, DELETE, UPDATE,
partitioned or not, with or without deletion vectors) and lake reads every
version of them back with Spark's rows (issue 11, item 6)."""
import datetime
import decimal
import json
import os

import pytest

from interop_rows import arrow_rows, lakectl_rows

D = decimal.Decimal
UTC = datetime.timezone.utc

DDL = ("id BIGINT, name STRING, amount DECIMAL(10,2), score DOUBLE, ts TIMESTAMP, day DATE, "
       "flag BOOLEAN, part STRING")



def rows(lo, n, amount_shift=0):
    out = []
    for i in range(lo, lo + n):
        out.append((i, None if i % 7 == 0 else f"n{i % 11}", D(f"{i * 3 + amount_shift}.{i % 100:02d}"),
                    float("nan") if i % 13 == 0 else i / 4, datetime.datetime(2024, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=i * 61.5),
                    datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 40), i % 2 == 0,
                    None if i % 5 == 0 else f"p{i % 3}"))
    return out


def has_deletion_vectors(path):
    log = os.path.join(path, "_delta_log")
    for name in os.listdir(log):
        if name.endswith(".json"):
            with open(os.path.join(log, name)) as f:
                for line in f:
                    if json.loads(line).get("add", {}).get("deletionVector"):
                        return True
    return False


def versions_match(spark, lakectl, path):
    """lake's rows equal Spark's at every version of the table."""
    from delta.tables import DeltaTable
    latest = DeltaTable.forPath(spark, path).history(1).collect()[0].version
    for v in range(latest + 1):
        want = arrow_rows(spark.read.format("delta").option("versionAsOf", v).load(path).toArrow())
        got = lakectl_rows(lakectl, "read", path, str(v))
        assert got == want, f"version {v} of {path}"
    return latest


@pytest.mark.parametrize("partitioned,dv", [
    pytest.param(False, False, id="flat-copy-on-write"),
    pytest.param(True, False, id="partitioned-copy-on-write"),
    pytest.param(False, True, id="flat-deletion-vectors"),
    pytest.param(True, True, id="partitioned-deletion-vectors"),
])
def test_lake_reads_spark_dml(spark, lakectl, tmp_path, partitioned, dv):
    path = str(tmp_path / "t")
    t = f"delta.`{path}`"
    part = "PARTITIONED BY (part)" if partitioned else ""
    spark.sql(f"CREATE TABLE {t} ({DDL}) USING delta {part} "
              f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{str(dv).lower()}')")
    df = lambda rs: spark.createDataFrame(rs, DDL)
    df(rows(0, 60)).write.format("delta").mode("append").save(path)
    df(rows(60, 40)).write.format("delta").mode("append").save(path)
    df(rows(40, 40, amount_shift=1000)).createOrReplaceTempView("src")
    spark.sql(f"MERGE INTO {t} AS t USING src AS s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"DELETE FROM {t} WHERE id % 4 = 1")
    spark.sql(f"UPDATE {t} SET name = 'updated', amount = amount * 2 WHERE id % 5 = 2")
    spark.sql(f"DELETE FROM {t} WHERE part = 'p1'")
    # The deletion-vector variants really hold deletion vectors, the others none.
    assert has_deletion_vectors(path) == dv
    latest = versions_match(spark, lakectl, path)
    assert latest == 6  # create, 2 appends, MERGE, DELETE, UPDATE, DELETE
