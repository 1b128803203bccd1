"""Records Spark's results for the function cases (cases/NAME.json) into
cases/NAME.golden.json, the oracle the Go tests (sqlfunctions_test.go at
the module root) check Millrace's functions against.

Run with the project's venv (scripts/venv.sh installs PySpark; Java 17):

    .venv/bin/python functions/testdata/record_spark.py [cases/NAME.json …]

(all case files when none is named). Each expression of a case file is
evaluated by Spark SQL (non-ANSI mode, UTC session time zone) over the
file's input table, and its result
type and values are written as JSON: null, strings, numbers (exact for
integers), "NaN"/"Infinity"/"-Infinity" for non-finite doubles,
timestamps as "YYYY-MM-DD HH:MM:SS.ffffff" in UTC, dates as "YYYY-MM-DD",
arrays as JSON arrays. An expression Spark rejects records its error class.
"""
import datetime
import json
import math
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import (BooleanType, DateType, DoubleType, IntegerType, LongType,
                               StringType, StructField, StructType, TimestampType)

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = {"string": StringType(), "int": IntegerType(), "bigint": LongType(),
         "double": DoubleType(), "boolean": BooleanType(), "timestamp": TimestampType(),
         "date": DateType()}


def parse_input(col_type, v):
    if v is None:
        return None
    if col_type == "timestamp":
        return datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
    if col_type == "date":
        return datetime.date.fromisoformat(v)
    if col_type == "double" and isinstance(v, str):
        return float(v)
    return v


def encode(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}"
    if isinstance(v, datetime.date):
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    return v


def record(spark, path):
    with open(path) as f:
        cases = json.load(f)
    cols = cases["columns"]
    schema = StructType([StructField(c["name"], TYPES[c["type"]], True) for c in cols])
    rows = [tuple(parse_input(c["type"], v) for c, v in zip(cols, r)) for r in cases["rows"]]
    df = spark.createDataFrame(rows, schema).coalesce(1)
    out = []
    for expr in cases["exprs"]:
        try:
            r = df.selectExpr(expr)
            typ = r.schema.fields[0].dataType.simpleString()
            values = [encode(row[0]) for row in r.collect()]
            out.append({"expr": expr, "type": typ, "values": values})
        except Exception as e:  # the expression is an error in Spark too
            msg = str(e).splitlines()[0]
            out.append({"expr": expr, "error": msg[:300]})
            print(f"spark rejects {expr}: {msg[:120]}", file=sys.stderr)
    with open(path[:-len(".json")] + ".golden.json", "w") as f:
        json.dump({"spark": spark.version, "cases": out}, f, indent=1)
        f.write("\n")


def case_paths(subdir, args):
    """The case files named on the command line, or all of subdir's."""
    return args or sorted(
        os.path.join(HERE, subdir, n) for n in os.listdir(os.path.join(HERE, subdir))
        if n.endswith(".json") and not n.endswith(".golden.json"))


def session(app, **conf):
    """A local[1] Spark session in UTC, non-ANSI, no UI, plus conf."""
    b = (SparkSession.builder.master("local[1]").appName(app)
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.ansi.enabled", "false")
         .config("spark.ui.enabled", "false")
         .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC -XX:TieredStopAtLevel=1"))
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def main():
    spark = session("millrace-functions")
    for p in case_paths("cases", sys.argv[1:]):
        record(spark, p)
    spark.stop()


if __name__ == "__main__":
    main()
