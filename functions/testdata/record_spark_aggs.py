"""Records Spark's results for the grouped-aggregate cases (aggs/NAME.json)
into aggs/NAME.golden.json, the oracle TestAggregatesMatchSpark
(sqlaggregates_test.go at the module root) checks Millrace's streaming
aggregation against.

Run with the project's venv (Java 17):

    .venv/bin/python functions/testdata/record_spark_aggs.py [aggs/NAME.json …]

A case file has an input table, either "columns" and "rows" (as the
function cases) or "generate": N, a table of N rows computed from the row
number i by the GENERATED expressions below (the Go test computes the same
formulas), and "queries": SQL over the table, named t. Each query runs as a
batch query over one partition holding the rows in order, so "first" and
"last" and collect_list's order are the input order; the result's column
names, types and rows (sorted by their JSON text) are recorded. A query
Spark rejects records its error.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_spark import TYPES, case_paths, encode, parse_input, session  # noqa: E402

from pyspark.sql.types import StructField, StructType  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# The generated table: row i (Spark's id) of N. Keep in step with
# generatedRow in sqlaggregates_test.go.
GENERATED = [
    ("k", "int", "cast(id % 3 as int)"),
    ("l", "bigint", "if(id % 17 = 0, null, id * 1000003 - 50000000)"),
    ("i", "int", "if(id % 19 = 0, null, cast(id * 7 - 300000 as int))"),
    ("d", "double", "if(id % 23 = 0, null, id / 7.0D)"),
    ("s", "string", "if(id % 13 = 0, null, concat('s', cast(id * 31 % 1000003 as string)))"),
    ("ts", "timestamp", "timestamp_micros(1700000000000000 + id * 1000)"),
    ("b", "boolean", "id % 5 = 0"),
]


def table(spark, cases):
    if "generate" in cases:
        n = cases["generate"]
        return spark.range(0, n, 1, 1).selectExpr(*[f"{e} AS {name}" for name, _, e in GENERATED])
    cols = cases["columns"]
    schema = StructType([StructField(c["name"], TYPES[c["type"]], True) for c in cols])
    rows = [tuple(parse_input(c["type"], v) for c, v in zip(cols, r)) for r in cases["rows"]]
    return spark.createDataFrame(rows, schema).coalesce(1)


def record(spark, path):
    with open(path) as f:
        cases = json.load(f)
    table(spark, cases).createOrReplaceTempView("t")
    out = []
    for q in cases["queries"]:
        try:
            r = spark.sql(q)
            rows = [[encode(v) for v in row] for row in r.collect()]
            rows.sort(key=lambda row: json.dumps(row))
            out.append({"sql": q, "columns": r.columns,
                        "types": [f.dataType.simpleString() for f in r.schema.fields], "rows": rows})
        except Exception as e:  # the query is an error in Spark too
            msg = str(e).splitlines()[0]
            out.append({"sql": q, "error": msg[:300]})
            print(f"spark rejects {q}: {msg[:120]}", file=sys.stderr)
    with open(path[:-len(".json")] + ".golden.json", "w") as f:
        json.dump({"spark": spark.version, "cases": out}, f, indent=1)
        f.write("\n")


def main():
    spark = session("millrace-aggregates", **{"spark.sql.shuffle.partitions": "1", "spark.driver.memory": "3g"})
    for p in case_paths("aggs", sys.argv[1:]):
        record(spark, p)
    spark.stop()


if __name__ == "__main__":
    main()
