"""Statistics and data skipping across readers (issue 11, items 1 and 2).

lake writes a table over several files from adversarial rows (NaN, ±Inf,
-0.0, nulls, long and non-ASCII strings, extreme decimals, dates and
timestamps, timestamp_ntz, a nested struct). For each predicate, three
readers that skip files by lake's stats must return exactly the rows of
the unfiltered table filtered here in Python:

- delta-rs, to_pyarrow_table(filters=...), with IEEE float semantics
  (NaN compares false);
- Spark with delta-spark (data skipping on), with Spark's semantics (NaN
  equals NaN and sorts above everything);
- `millrace delta read --where`, with Spark's semantics.

And lake's stats for one file equal the stats Spark writes for the same
rows, up to the departures documented in lake/stats.go.
"""
import datetime
import decimal
import json
import math
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

D = decimal.Decimal
UTC = datetime.timezone.utc
NAN, INF = float("nan"), float("inf")

SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("f64", pa.float64()),
    ("f32", pa.float32()),
    ("dec", pa.decimal128(38, 18)),
    ("dec2", pa.decimal128(10, 2)),
    ("b", pa.bool_()),
    ("s", pa.string()),
    ("d", pa.date32()),
    ("ts", pa.timestamp("us", tz="UTC")),
    ("ntz", pa.timestamp("us")),
    ("st", pa.struct([("x", pa.int64()), ("y", pa.string())])),
])

FLOATS = [NAN, -1.0, 0.5, INF, -INF, -0.0, 0.0, 1e300, -1e-300, 3.0, 2.5e-308, -7.25]
DECS = [D("99999999999999999999.999999999999999999"), D("-99999999999999999999.999999999999999999"),
        D("0.000000000000000001"), D("-0.000000000000000001"), D("0"), D("580.7"), None]
DEC2 = [D("580.70"), D("-99999999.99"), D("99999999.99"), D("0.00"), D("-0.01"), None]
STRS = ["z" * 40, "z" * 40 + "a", "\u00e9" * 40, "\U0001F600" * 20, "", "a", None, "\U0010FFFF" * 3,
        "b" * 31 + "\uffff" + "c", "A long string that goes past thirty-two characters"]
DATES = [datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(1970, 1, 1), datetime.date(2024, 2, 29), None]
TSS = [datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), datetime.datetime(2024, 1, 1, 0, 0, 0, 999999, tzinfo=UTC),
       datetime.datetime(2024, 1, 1, 0, 0, 1, tzinfo=UTC), datetime.datetime(1, 1, 1, tzinfo=UTC),
       datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), None]
NTZS = [datetime.datetime(2024, 1, 1, 12, 0, 0, 123456), datetime.datetime(1, 1, 1), None,
        datetime.datetime(2024, 1, 1, 12, 0, 0, 124000), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)]


def adversarial_files():
    """Six files of rows; file 0 holds NaN beside values <= 0 only (a reader
    that leaves NaN out of max skips it for f64 > 0), file 1 holds +Inf as
    its max, file 5 no NaN at all."""
    files, rid = [], 0
    for f in range(6):
        rows = []
        for i in range(12):
            k = rid
            f64 = FLOATS[(k * 7 + f) % len(FLOATS)]
            if f == 0:
                f64 = [NAN, -1.0, 0.0, -2.0, -0.0, -3.0, NAN, -4.0, None, -5.0, -6.0, -7.0][i]
            elif f == 1 and i == 0:
                f64 = INF
            elif f == 5 and f64 != f64:
                f64 = 1.5
            elif k % 11 == 5:
                f64 = None
            f32 = FLOATS[(k * 5 + f) % len(FLOATS)]
            if f32 == 1e300 or f32 == 2.5e-308 or f32 == -1e-300:
                f32 = 0.1
            if f == 5 and f32 != f32:
                f32 = 2.0
            rows.append({
                "id": rid, "f64": f64, "f32": f32,
                "dec": DECS[(k * 3 + f) % len(DECS)], "dec2": DEC2[(k + f) % len(DEC2)],
                "b": None if k % 5 == 4 else (k % 3 == 0 if f != 2 else True),
                "s": STRS[(k * 5 + f) % len(STRS)], "d": DATES[(k + f) % len(DATES)],
                "ts": TSS[(k + 2 * f) % len(TSS)], "ntz": NTZS[(k * 3 + f) % len(NTZS)],
                "st": None if k % 7 == 3 else {"x": None if k % 4 == 1 else k * 10 - 200, "y": STRS[(k + 3) % len(STRS)]},
            })
            rid += 1
        files.append(rows)
    return files


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory, lakectl):
    """Parquet files of the adversarial rows and the lake table made from
    them (one commit and one data file per Parquet file)."""
    tmp = tmp_path_factory.mktemp("adversarial")
    files = adversarial_files()
    names = []
    for i, rows in enumerate(files):
        name = str(tmp / f"in-{i}.parquet")
        pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), name)
        names.append(name)
    table = str(tmp / "lake")
    subprocess.run([lakectl, "from-parquet", table, *names], check=True)
    return {"table": table, "parquet": names, "rows": [r for rows in files for r in rows]}


# Predicates: (column, op, value). Every reader gets the same literal.
PREDICATES = [
    ("f64", ">", 0.0), ("f64", "<", 0.0), ("f64", ">", 1e300), ("f64", ">=", INF), ("f64", "=", INF),
    ("f64", "=", -INF), ("f64", "<=", -1e300), ("f64", "=", 0.0), ("f64", "=", NAN), ("f64", ">", NAN),
    ("f64", "<", NAN), ("f64", ">=", -0.0),
    ("dec", ">", D("0")), ("dec", "=", D("580.7")), ("dec", ">=", D("99999999999999999999.999999999999999999")),
    ("dec", "<", D("-1E+19")), ("dec", "=", D("1E-18")), ("dec", "<", D("0")),
    ("dec2", "=", D("580.70")), ("dec2", ">", D("99999999.98")), ("dec2", "<", D("-0.005")),
    ("b", "=", True), ("b", "=", False),
    ("s", ">", "z" * 40), ("s", "=", "z" * 40 + "a"), ("s", ">=", "\U0010FFFF"), ("s", "<", "a"),
    ("s", "=", "\U0001F600" * 20), ("s", "=", "\u00e9" * 40), ("s", ">", "b" * 31 + "\uffff"), ("s", "=", ""),
    ("d", ">=", datetime.date(9999, 12, 31)), ("d", "<", datetime.date(1970, 1, 1)), ("d", "=", datetime.date(2024, 2, 29)),
    ("ts", "=", datetime.datetime(2024, 1, 1, 0, 0, 0, 999999, tzinfo=UTC)),
    ("ts", ">", datetime.datetime(2024, 1, 1, 0, 0, 0, 999500, tzinfo=UTC)),
    ("ts", "<", datetime.datetime(1, 1, 1, 0, 0, 0, 1, tzinfo=UTC)),
    ("ts", ">=", datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ("ntz", "=", datetime.datetime(2024, 1, 1, 12, 0, 0, 123456)),
    ("ntz", ">", datetime.datetime(2024, 1, 1, 12, 0, 0, 123999)),
    ("ntz", "<", datetime.datetime(1, 1, 1, 0, 0, 0, 1)),
]

IDS = [f"{c} {op} {v!r}" for c, op, v in PREDICATES]


def compare(a, b, spark_order):
    """Three-way comparison; spark_order puts NaN above everything and
    equal to itself. None when IEEE comparison is unordered (NaN)."""
    if isinstance(a, float) and isinstance(b, float) and (math.isnan(a) or math.isnan(b)):
        if not spark_order:
            return None
        return (math.isnan(a) > math.isnan(b)) - (math.isnan(a) < math.isnan(b))
    return (a > b) - (a < b)


def holds(v, op, lit, spark_order):
    if v is None:
        return False
    c = compare(v, lit, spark_order)
    if c is None:
        return False
    return {"=": c == 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]


def truth(rows, col, op, lit, spark_order):
    return sorted(r["id"] for r in rows if holds(r[col], op, lit, spark_order))


def spark_literal(col, v):
    if isinstance(v, float):
        if math.isnan(v):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(v):
            return "CAST('Infinity' AS DOUBLE)" if v > 0 else "CAST('-Infinity' AS DOUBLE)"
        return f"CAST('{v!r}' AS DOUBLE)"
    if isinstance(v, D):
        return f"{v}BD"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(v, datetime.datetime):
        kind = "TIMESTAMP_NTZ" if v.tzinfo is None else "TIMESTAMP"
        return f"{kind} '{v.replace(tzinfo=None).isoformat(' ')}'"
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    raise TypeError(v)


def where_literal(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "+Inf" if v > 0 else "-Inf"
        return repr(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v + "'"
    if isinstance(v, datetime.datetime):
        return v.isoformat()  # RFC 3339 with an offset, or none for timestamp_ntz
    return str(v)


def test_lake_table_layout(adversarial):
    """The table has one data file per input file, and a NaN file has no
    min/max while the others do (the premise of the skipping tests)."""
    dt = DeltaTable(adversarial["table"])
    assert len(dt.file_uris()) == 6
    assert dt.protocol().min_reader_version == 3  # timestamp_ntz
    assert "timestampNtz" in dt.protocol().reader_features
    stats = [json.loads(a["add"]["stats"]) for a in log_actions(adversarial["table"]) if "add" in a]
    assert sum("minValues" not in s for s in stats) == 5  # every file but the last holds a NaN
    assert "f64" in stats[-1]["minValues"] and "f64" in stats[-1]["maxValues"]


@pytest.mark.parametrize("pred", PREDICATES, ids=IDS)
def test_delta_rs_filtered_reads(adversarial, pred):
    col, op, lit = pred
    if isinstance(lit, float) and math.isnan(lit):
        pytest.skip("pyarrow filters cannot take a NaN literal")
    dt = DeltaTable(adversarial["table"])
    got = sorted(dt.to_pyarrow_table(filters=[(col, op, lit)]).column("id").to_pylist())
    assert got == truth(adversarial["rows"], col, op, lit, spark_order=False)


@pytest.mark.parametrize("pred", PREDICATES, ids=IDS)
def test_millrace_where(adversarial, millrace, pred):
    col, op, lit = pred
    out = subprocess.run([millrace, "delta", "read", "--format", "json", "--where",
                          f"{col} {op} {where_literal(lit)}", adversarial["table"]],
                         check=True, capture_output=True, text=True).stdout
    got = sorted(json.loads(line)["id"] for line in out.splitlines() if line)
    assert got == truth(adversarial["rows"], col, op, lit, spark_order=True)


def test_spark_filtered_reads(adversarial, spark):
    """One test for all predicates: Spark reads the table once per
    predicate with data skipping on (its default)."""
    df = spark.read.format("delta").load(adversarial["table"])
    assert df.count() == len(adversarial["rows"])
    bad = []
    for col, op, lit in PREDICATES:
        expr = f"{col} {op} {spark_literal(col, lit)}"
        got = sorted(r.id for r in df.where(expr).select("id").collect())
        want = truth(adversarial["rows"], col, op, lit, spark_order=True)
        if got != want:
            bad.append(f"{expr}: got {got}, want {want}")
    assert not bad, "\n".join(bad)


def log_actions(table):
    log = os.path.join(table, "_delta_log")
    out = []
    for name in sorted(os.listdir(log)):
        if name.endswith(".json"):
            with open(os.path.join(log, name)) as f:
                out += [json.loads(line) for line in f if line.strip()]
    return out


def file_stats(table):
    return [json.loads(a["add"]["stats"], parse_float=str, parse_int=str)
            for a in log_actions(table) if "add" in a]


FLOAT_COLS = {"f64", "f32"}


def same_stat(col, spark_v, lake_v, is_max):
    """Whether lake's min/max value of col matches Spark's for one file."""
    if isinstance(spark_v, dict):
        return isinstance(lake_v, dict) and set(spark_v) == set(lake_v) and all(
            same_stat(k, spark_v[k], lake_v[k], is_max) for k in spark_v)
    if col in FLOAT_COLS:
        return float(spark_v) == float(lake_v)  # 1.0E300 is 1e+300; -0.0 and 0.0 are one bound
    if col == "ts" or col == "ntz":
        if spark_v == lake_v:
            return True
        # lake rounds max up to the next millisecond (lake/stats.go).
        fmt = "%Y-%m-%dT%H:%M:%S.%f"
        s = datetime.datetime.strptime(spark_v.rstrip("Z"), fmt)
        m = datetime.datetime.strptime(lake_v.rstrip("Z"), fmt)
        return is_max and m - s == datetime.timedelta(milliseconds=1)
    return spark_v == lake_v  # decimals as written: 580.70, 1E-18; strings after truncation


def test_stats_match_spark(adversarial, spark, lakectl, tmp_path):
    """For each input file, Spark and lake write one data file from the same
    rows; lake's stats equal Spark's but for the documented departures:
    no min/max when the file holds a NaN (Spark: max "NaN"), boolean
    min/max (Spark: none), timestamp max rounded up, float spelling."""
    bad = []
    for i, name in enumerate(adversarial["parquet"]):
        sp = str(tmp_path / f"spark-{i}")
        spark.read.parquet(name).coalesce(1).write.format("delta").save(sp)
        lk = str(tmp_path / f"lake-{i}")
        subprocess.run([lakectl, "from-parquet", lk, name], check=True)
        [s], [m] = file_stats(sp), file_stats(lk)
        if s["numRecords"] != m["numRecords"] or s["nullCount"] != m["nullCount"]:
            bad.append(f"file {i}: numRecords/nullCount: spark {s}, lake {m}")
            continue
        spark_nan = "NaN" in json.dumps([s.get("minValues"), s.get("maxValues")])
        if spark_nan:
            if "minValues" in m or "maxValues" in m:
                bad.append(f"file {i} holds a NaN, lake wrote min/max: {m}")
            continue
        for which, is_max in (("minValues", False), ("maxValues", True)):
            lv = dict(m[which])
            assert lv.pop("b", None) is not None or all(r["b"] is None for r in adversarial["rows"][i * 12:(i + 1) * 12])
            if lv.keys() != s[which].keys() or not all(same_stat(k, s[which][k], lv[k], is_max) for k in lv):
                bad.append(f"file {i} {which}:\n spark {s[which]}\n lake  {m[which]}")
    assert not bad, "\n".join(bad)


def test_ntz_protocol_matches_spark(spark, lakectl, tmp_path):
    """A timestamp_ntz table gets the protocol Spark gives it, and
    delta-rs and Spark open lake's."""
    name = str(tmp_path / "ntz.parquet")
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()),
                             "ntz": pa.array([datetime.datetime(2024, 1, 1, 12), None], pa.timestamp("us"))}), name)
    lk, sp = str(tmp_path / "lake"), str(tmp_path / "spark")
    subprocess.run([lakectl, "from-parquet", lk, name], check=True)
    spark.read.parquet(name).write.format("delta").save(sp)
    proto = lambda t: [a["protocol"] for a in log_actions(t) if "protocol" in a][0]
    ps, pl = proto(sp), proto(lk)
    assert (pl["minReaderVersion"], pl["minWriterVersion"]) == (ps["minReaderVersion"], ps["minWriterVersion"]) == (3, 7)
    assert sorted(pl["readerFeatures"]) == sorted(ps["readerFeatures"])
    assert sorted(pl["writerFeatures"]) == sorted(ps["writerFeatures"])
    assert DeltaTable(lk).to_pyarrow_table().num_rows == 2
    assert spark.read.format("delta").load(lk).count() == 2
