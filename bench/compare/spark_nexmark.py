#!/usr/bin/env python3
"""Spark Structured Streaming over the exported Parquet events.

Local mode with as many cores as given (local[N], shuffle partitions = N),
the file source reading maxFilesPerTrigger files per trigger (the export
writes one file per Millrace trigger of events), the AvailableNow trigger,
and the `noop` sink (Spark's blackhole: it consumes every row). For each
query, one untimed warm-up run over the first file (JIT, class loading)
then the timed run over all files; CPU seconds are the JVM's (from
/proc/<pid>/stat), so events/s/core = events / JVM CPU seconds.
Prints one JSON object per query.

  python3 spark_nexmark.py --dir /tmp/nexmark-10m --cores 2 --queries q0,q1,q2,q11,q12
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from pyspark.sql import SparkSession, functions as F


# The event kinds (export subdirectories) each query reads: bids are the
# export directory itself, persons and auctions its person/ and auction/.
INPUTS = {"q3": ("person", "auction")}


def inputs(name):
    return INPUTS.get(name, ("bid",))


def kind_dir(root, kind):
    return root if kind == "bid" else os.path.join(root, kind)


def build(name, streams):
    """Returns (stream, output mode) of query name over the event streams
    (a dict kind -> streaming DataFrame)."""
    if name == "q3":
        # Stream-stream inner join without a watermark: both sides' state
        # is kept forever, as in Millrace's q3.
        p = (streams["person"].where(F.col("state").isin("OR", "ID", "CA"))
             .select(F.col("id").alias("person_id"), "name", "city", "state"))
        a = streams["auction"].where(F.col("category") == 10).select("id", "seller")
        return (a.join(p, a["seller"] == p["person_id"], "inner")
                .select("name", "city", "state", "id")), "append"
    bids = streams["bid"]
    if name == "q0":
        return bids.select("auction", "bidder", "price", "dateTime", "extra"), "append"
    if name == "q1":
        return bids.select("auction", "bidder", (F.col("price") * 0.908).alias("price"),
                           "dateTime", "extra"), "append"
    if name == "q2":
        return bids.where(F.col("auction") % 123 == 0).select("auction", "price"), "append"
    if name == "q11":
        return (bids.withWatermark("dateTime", "4 seconds")
                .groupBy(F.session_window("dateTime", "10 seconds"), "bidder")
                .agg(F.count(F.lit(1)).alias("bid_count"))
                .select("bidder", "bid_count", "session_window")), "append"
    if name == "q12":
        return (bids.withColumn("p_time", F.current_timestamp())
                .groupBy(F.window("p_time", "10 seconds"), "bidder")
                .agg(F.count(F.lit(1)).alias("bid_count"))
                .select("bidder", "bid_count", "window")), "update"
    raise ValueError(f"unknown query {name}")


def jvm_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime


def run(spark, name, src_dirs, files_per_trigger, schemas, ckpt_root):
    streams = {k: (spark.readStream.schema(schemas[k]).option("maxFilesPerTrigger", files_per_trigger)
                   .option("pathGlobFilter", "*.parquet")
                   .parquet(src_dirs[k])) for k in inputs(name)}
    stream, mode = build(name, streams)
    ckpt = tempfile.mkdtemp(dir=ckpt_root)
    q = (stream.writeStream.format("noop").outputMode(mode)
         .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
    q.awaitTermination()
    progress = q.recentProgress
    shutil.rmtree(ckpt, ignore_errors=True)
    if q.exception():
        raise RuntimeError(str(q.exception()))
    rows = sum(p["numInputRows"] for p in progress)
    return rows, len(progress)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cores", type=int, default=os.cpu_count())
    ap.add_argument("--queries", default="q0,q1,q2,q11,q12")
    ap.add_argument("--files-per-trigger", type=int, default=1)
    ap.add_argument("--memory", default="2g", help="driver memory (local mode: all of Spark)")
    ap.add_argument("--state-store", default="hdfs", choices=["hdfs", "rocksdb"])
    a = ap.parse_args()
    man = json.load(open(os.path.join(a.dir, "manifest.json")))
    b = (SparkSession.builder.master(f"local[{a.cores}]").appName("nexmark")
         .config("spark.sql.shuffle.partitions", a.cores)
         .config("spark.driver.memory", a.memory)
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.streaming.metricsEnabled", "false"))
    if a.state_store == "rocksdb":
        b = b.config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    names = [n.strip() for n in a.queries.split(",")]
    kinds = sorted({k for n in names for k in inputs(n)})
    dirs = {k: kind_dir(a.dir, k) for k in kinds}
    schemas = {k: spark.read.option("pathGlobFilter", "*.parquet").parquet(dirs[k]).schema for k in kinds}
    root = tempfile.mkdtemp(prefix="nexmark-spark-")
    # Warm-up input: each kind's first file alone, in its own directory.
    warm = {}
    for k in kinds:
        warm[k] = os.path.join(root, "warm-" + k)
        os.makedirs(warm[k])
        first = sorted(f for f in os.listdir(dirs[k]) if f.endswith(".parquet"))[0]
        os.symlink(os.path.join(os.path.abspath(dirs[k]), first), os.path.join(warm[k], first))
    for name in names:
        run(spark, name, warm, 1, schemas, root)
        c0, t0 = jvm_cpu_seconds(pid), time.perf_counter()
        rows, batches = run(spark, name, dirs, a.files_per_trigger, schemas, root)
        wall, cpu = time.perf_counter() - t0, jvm_cpu_seconds(pid) - c0
        ev = man["events"]
        print(json.dumps({
            "engine": "spark", "query": name, "events": ev, "inputRows": rows, "batches": batches,
            "wallSeconds": wall, "cpuSeconds": cpu, "cores": cpu / wall if wall else 0,
            "eventsPerSecond": ev / wall, "eventsPerSecondPerCore": ev / cpu if cpu else 0,
            "localCores": a.cores, "stateStore": a.state_store, "spark": spark.version,
        }), flush=True)
    shutil.rmtree(root, ignore_errors=True)
    spark.stop()


if __name__ == "__main__":
    sys.exit(main())
