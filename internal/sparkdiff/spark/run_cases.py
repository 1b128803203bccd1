"""Runs differential cases through Apache Spark Structured Streaming.

Usage: run_cases.py CASES.json RESULTS.json [--threads N] [--partitions N]

CASES.json is what `internal/sparkdiff` generates (a JSON list of cases, see
case.go there). For each case this script builds the same query in PySpark,
feeds each input trigger as one MemoryStream batch, calls processAllAvailable
and records, per input trigger, the rows every micro-batch wrote (foreachBatch),
so that batch numbering and no-data batches do not matter. RESULTS.json maps
one JSON line per case: {"name", "triggers": [[batch rows, ...] per trigger]}
or {"name", "error": msg}, written as each case ends.

Why MemoryStream and not a file source: the two inputs of a stream-stream join
come from ONE MemoryStream (a "side" column, filtered into two branches). The
MemoryStream object is shared by both branches, so Spark reads each added batch
for both sides in the same micro-batch; two sources (or two file directories)
can be split across micro-batches by the polling thread.

Values crossing the boundary: timestamps are integers of microseconds since the
epoch (unix_micros), a window/session struct is a [start, end] pair.
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import queue
import datetime

from pyspark.sql import SparkSession, DataFrame, functions as F
from pyspark.sql.types import (StructType, StructField, StringType, LongType,
                               TimestampType)

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def ts(us):
    if us is None:
        return None
    return EPOCH + datetime.timedelta(microseconds=us)


def secs(ms):
    """A Spark interval literal for a duration in milliseconds."""
    return "INTERVAL %d MILLISECONDS" % ms


def to_plain(df):
    """Turns timestamps into microseconds and structs into [start, end]."""
    cols = []
    for f in df.schema.fields:
        c = F.col("`%s`" % f.name)
        if isinstance(f.dataType, TimestampType):
            c = F.unix_micros(c)
        elif isinstance(f.dataType, StructType):
            c = F.when(c.isNull(), F.lit(None)).otherwise(
                F.array(F.unix_micros(c["start"]), F.unix_micros(c["end"])))
        cols.append(c.alias(f.name))
    return df.select(*cols)


def row_value(v):
    if isinstance(v, list):
        return [row_value(x) for x in v]
    return v


AGGS = lambda: [
    F.count(F.lit(1)).alias("n"),
    F.count("v").alias("c"),
    F.sum("v").alias("s"),
    F.min("v").alias("mn"),
    F.max("v").alias("mx"),
    F.avg("v").alias("a"),
]


class Runner:
    def __init__(self, spark):
        self.spark = spark
        self.jvm = spark._jvm
        self.next_id = 1000
        self.lock = threading.Lock()

    def memory_stream(self, schema):
        jvm = self.jvm
        enc = jvm.org.apache.spark.sql.Encoders.row(
            jvm.org.apache.spark.sql.types.DataType.fromJson(schema.json()))
        with self.lock:
            self.next_id += 1
            sid = self.next_id
        ms = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream(
            sid, self.spark._jsparkSession, jvm.scala.Option.empty(), enc)
        return ms, DataFrame(ms.toDF(), self.spark)

    def add(self, ms, schema, rows):
        # Rows go through a local DataFrame so that Spark converts the Python
        # values (timestamps above all) into the JVM Row types its encoder wants.
        jrows = self.spark.createDataFrame(rows, schema)._jdf.collectAsList()
        seq = self.jvm.scala.jdk.javaapi.CollectionConverters.asScala(jrows).toList()
        ms.addData(seq)

    def build(self, case, src):
        key_type = StringType() if case["key_type"] == "string" else LongType()
        op = case["op"]

        def side(name, prefix):
            d = src.where(F.col("side") == name).select(
                F.col("k").alias(prefix + "k"), F.col("t").alias(prefix + "t"),
                F.col("v").alias(prefix + "v"))
            return d

        def wm(d, col, delay):
            return d.withWatermark(col, "%d milliseconds" % delay) if delay is not None else d

        delay = case.get("delay_ms") if case.get("watermark") else None
        if op in ("window", "sliding", "groupby", "session", "dedup_time",
                  "dedup_key", "dedup_within", "static_join", "dedup_window"):
            d = wm(side("L", ""), "t", delay)
            if op == "window":
                return d.groupBy(F.window("t", "%d milliseconds" % case["size_ms"]), "k").agg(*AGGS())
            if op == "sliding":
                return d.groupBy(F.window("t", "%d milliseconds" % case["size_ms"],
                                          "%d milliseconds" % case["slide_ms"]), "k").agg(*AGGS())
            if op == "groupby":
                return d.groupBy("k").agg(*AGGS())
            if op == "session":
                return d.groupBy(F.session_window("t", "%d milliseconds" % case["gap_ms"]), "k").agg(*AGGS())
            if op == "dedup_time":
                return d.dropDuplicates(["k", "t"])
            if op == "dedup_key":
                return d.dropDuplicates(["k"])
            if op == "dedup_within":
                return d.dropDuplicatesWithinWatermark(["k"])
            if op == "dedup_window":
                return d.dropDuplicates(["k", "t"]).groupBy(
                    F.window("t", "%d milliseconds" % case["size_ms"]), "k").agg(*AGGS())
            if op == "static_join":
                static = self.spark.createDataFrame(
                    [tuple(r) for r in case.get("static") or []],
                    StructType([StructField("sk", key_type), StructField("sv", LongType())]))
                how = {"inner": "inner", "left_outer": "left_outer", "left_semi": "left_semi"}[case["join"]]
                return d.join(static, F.col("k") == F.col("sk"), how)
        if op in ("join", "join_window"):
            left = wm(side("L", "l"), "lt", delay)
            rdelay = case.get("right_delay_ms", 0) if case.get("watermark") else None
            right = wm(side("R", "r"), "rt", rdelay)
            cond = ((F.col("lk") == F.col("rk")) &
                    (F.col("rt") >= F.col("lt") + F.expr(secs(case.get("lower_ms", 0)))) &
                    (F.col("rt") <= F.col("lt") + F.expr(secs(case.get("upper_ms", 0)))))
            j = left.join(right, cond, case["join"])
            if op == "join":
                return j
            return j.groupBy(F.window("lt", "%d milliseconds" % case["size_ms"]), "lk").agg(
                F.count(F.lit(1)).alias("n"), F.sum("rv").alias("s"))
        raise ValueError("unknown op %s" % op)

    def run(self, case, workdir):
        key_type = StringType() if case["key_type"] == "string" else LongType()
        schema = StructType([StructField("side", StringType()), StructField("k", key_type),
                             StructField("t", TimestampType()), StructField("v", LongType())])
        ms, src = self.memory_stream(schema)
        df = self.build(case, src)
        out = []
        got = []

        def each_batch(bdf, bid):
            rows = to_plain(bdf).collect()
            got.append([[row_value(x) for x in r] for r in rows])

        ckpt = tempfile.mkdtemp(dir=workdir)
        q = (df.writeStream.outputMode(case["mode"]).foreachBatch(each_batch)
             .option("checkpointLocation", ckpt).start())
        try:
            for trig in case["triggers"]:
                rows = [("L", r[0], ts(r[1]), r[2]) for r in trig.get("left") or []]
                rows += [("R", r[0], ts(r[1]), r[2]) for r in trig.get("right") or []]
                self.add(ms, schema, rows)
                q.processAllAvailable()
                out.append(list(got))
                got.clear()
        finally:
            q.stop()
            shutil.rmtree(ckpt, ignore_errors=True)
        return out


def main():
    args = sys.argv[1:]
    threads, partitions, append = 2, 2, False
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--threads":
            threads = int(args[i + 1]); i += 2
        elif args[i] == "--append":
            append = True; i += 1
        elif args[i] == "--partitions":
            partitions = int(args[i + 1]); i += 2
        else:
            pos.append(args[i]); i += 1
    cases_path, results_path = pos
    with open(cases_path) as f:
        cases = json.load(f)
    spark = (SparkSession.builder.master("local[2]").appName("millrace-sparkdiff")
             .config("spark.sql.shuffle.partitions", str(partitions))
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.streaming.numRecentProgressUpdates", "5")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    runner = Runner(spark)
    workdir = tempfile.mkdtemp(prefix="sparkdiff-")
    work = queue.Queue()
    for c in cases:
        work.put(c)
    done = [0]
    t0 = time.time()
    mu = threading.Lock()
    out = open(results_path, "a" if append else "w")

    def worker():
        while True:
            try:
                c = work.get_nowait()
            except queue.Empty:
                return
            try:
                res = {"name": c["name"], "triggers": runner.run(c, workdir)}
            except Exception as e:  # an analysis error: Spark refuses the query
                msg = str(e).strip().splitlines()
                res = {"name": c["name"], "error": msg[0] if msg else repr(e)}
            with mu:
                out.write(json.dumps(res) + "\n")
                out.flush()
                done[0] += 1
                sys.stderr.write("spark: %d/%d %s %s (%.0fs)\n" % (
                    done[0], len(cases), c["name"], "error" if "error" in res else "ok", time.time() - t0))
                sys.stderr.flush()

    threads_ = [threading.Thread(target=worker) for _ in range(threads)]
    for t in threads_:
        t.start()
    for t in threads_:
        t.join()
    out.close()
    shutil.rmtree(workdir, ignore_errors=True)
    spark.stop()


if __name__ == "__main__":
    main()
