"""Records Spark's per-trigger output for the streaming examples of Spark's
Structured Streaming programming guide, written as Spark SQL.

Usage: guide_sql.py [CASES.json [GOLDEN.json]]
(defaults: ../testdata/guide_sql_cases.json and ../testdata/guide_sql.json)

Run with the project's venv (PySpark 4.2, Java 17): `make spark-guide-record`.

For each case the stream views are temporary views over ONE MemoryStream
(run_cases.py's Runner) with a "view" column naming the view a row belongs
to, each view a filter on it: all the views' rows of a trigger then reach
the same micro-batch (separate sources can be split across micro-batches
by Spark's polling thread). Static tables are temporary views over local
DataFrames. The case's SQL text runs as spark.sql(text).writeStream with
foreachBatch; each trigger's rows are added, processAllAvailable() is
called, and the rows of every micro-batch run meanwhile (the data batch
and any no-data batch) are that trigger's output. Values are encoded as
run_cases.py encodes them: timestamps in microseconds since the epoch, a
window struct as [start, end].
"""
import datetime
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from pyspark.sql import SparkSession, DataFrame, functions as F  # noqa: E402
from pyspark.sql.types import (StructType, StructField, StringType, LongType,  # noqa: E402
                               TimestampType)

from run_cases import Runner, to_plain, row_value  # noqa: E402

TYPES = {"string": StringType(), "bigint": LongType(), "timestamp": TimestampType()}


def parse_value(col_type, v):
    if v is None or col_type != "timestamp":
        return v
    return datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)


def schema_of(columns):
    return StructType([StructField(n, TYPES[t]) for n, t in columns])


def run_case(spark, runner, case, workdir):
    # One MemoryStream whose schema is the "view" column and every column
    # of every stream view (a column two views share must have one type).
    cols, types = [], {}
    for v in case["streams"]:
        for n, t in v["columns"]:
            if n in types:
                if types[n] != t:
                    raise ValueError("column %s has types %s and %s" % (n, types[n], t))
                continue
            types[n] = t
            cols.append((n, t))
    schema = schema_of([("view", "string")] + cols)
    ms, src = runner.memory_stream(schema)
    for v in case["streams"]:
        names = [n for n, _ in v["columns"]]
        src.where(F.col("view") == v["name"]).select(*names).createOrReplaceTempView(v["name"])
    for s in case.get("static") or []:
        rows = [tuple(parse_value(t, x) for (_, t), x in zip(s["columns"], r)) for r in s["rows"]]
        spark.createDataFrame(rows, schema_of(s["columns"])).createOrReplaceTempView(s["name"])

    df = spark.sql(case["sql"])
    got = []

    def each_batch(bdf, bid):
        got.append([[row_value(x) for x in r] for r in to_plain(bdf).collect()])

    ckpt = tempfile.mkdtemp(dir=workdir)
    q = (df.writeStream.outputMode(case["mode"]).foreachBatch(each_batch)
         .option("checkpointLocation", ckpt).start())
    out = []
    try:
        for trig in case["triggers"]:
            rows = []
            for v in case["streams"]:
                vtypes = dict(v["columns"])
                for r in trig.get(v["name"]) or []:
                    named = dict(zip([n for n, _ in v["columns"]], r))
                    rows.append(tuple([v["name"]] + [parse_value(t, named.get(n)) if n in vtypes else None
                                                     for n, t in cols]))
            runner.add(ms, schema, rows)
            q.processAllAvailable()
            out.append(list(got))
            got.clear()
    finally:
        q.stop()
        shutil.rmtree(ckpt, ignore_errors=True)
    return out


def dumps(doc, indent=0):
    """JSON with one line per row: a list of scalars is not broken up."""
    pad = " " * (indent + 1)
    if isinstance(doc, dict) and doc:
        items = ["%s%s: %s" % (pad, json.dumps(k), dumps(v, indent + 1)) for k, v in doc.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(doc, list) and any(isinstance(x, (list, dict)) for x in doc):
        items = [pad + dumps(x, indent + 1) for x in doc]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(doc)


def main():
    args = sys.argv[1:]
    cases_path = args[0] if args else os.path.join(HERE, "..", "testdata", "guide_sql_cases.json")
    golden_path = args[1] if len(args) > 1 else os.path.join(HERE, "..", "testdata", "guide_sql.json")
    with open(cases_path) as f:
        doc = json.load(f)
    spark = (SparkSession.builder.master("local[2]").appName("millrace-guide-sql")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    runner = Runner(spark)
    workdir = tempfile.mkdtemp(prefix="guide-sql-")
    results = []
    try:
        for case in doc["cases"]:
            try:
                res = {"name": case["name"], "triggers": run_case(spark, runner, case, workdir)}
                status = "ok"
            except Exception as e:  # Spark refuses the query: the answer is its error
                msg = str(e).strip().splitlines()
                res = {"name": case["name"], "error": msg[0] if msg else repr(e)}
                status = "error: " + res["error"]
            sys.stderr.write("spark: %s %s\n" % (case["name"], status))
            results.append(res)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    golden = {"spark_version": spark.version, "cases": doc["cases"], "spark": results}
    spark.stop()
    with open(golden_path, "w") as f:
        f.write(dumps(golden) + "\n")


if __name__ == "__main__":
    main()
