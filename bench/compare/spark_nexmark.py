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

  python3 spark_nexmark.py --dir /tmp/nexmark-10m --cores 2 --queries q0,q1,q2,q5,q7,q8,q11,q12
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
# A kind listed twice is read by two streams (two file sources over the
# same files), as Millrace's chained queries read it through two sources.
INPUTS = {"q3": ("person", "auction"), "q4": ("auction", "bid"), "q5": ("bid", "bid"),
          "q7": ("bid", "bid"), "q8": ("person", "auction")}

# bench/nexmark's WatermarkDelay and window sizes.
DELAY = "4 seconds"
SIZE = "10 seconds"
SLIDE = "2 seconds"


def inputs(name):
    return INPUTS.get(name, ("bid",))


def kind_dir(root, kind):
    return root if kind == "bid" else os.path.join(root, kind)


def max_auction_length_us(rate):
    """bench/nexmark's Generator.MaxAuctionLength in µs: the longest
    auction (expires − dateTime) the generator makes at rate events/s."""
    ahead = 100 * 50 // 3  # numInFlightAuctions · ProportionDenominator / auctionProportion
    return 2 * (ahead * 1_000_000 // rate + 1)


def build(name, read, rate):
    """Returns (stream, output mode) of query name; read(kind) returns a
    new streaming DataFrame of that kind of event."""
    if name == "q3":
        # Stream-stream inner join without a watermark: both sides' state
        # is kept forever, as in Millrace's q3.
        p = (read("person").where(F.col("state").isin("OR", "ID", "CA"))
             .select(F.col("id").alias("person_id"), "name", "city", "state"))
        a = read("auction").where(F.col("category") == 10).select("id", "seller")
        return (a.join(p, a["seller"] == p["person_id"], "inner")
                .select("name", "city", "state", "id")), "append"
    if name == "q4":
        # Millrace's plan: auctions (watermarks on dateTime as a_time and on
        # expires) joined with bids on id = auction and a time range Spark
        # can evict state by (bid time within [expires − longest auction,
        # expires]), then a_time <= dateTime; the closing price per (id,
        # category, expires) in Append; the average per category in
        # Complete mode, which Spark refuses after a stream-stream join
        # (the error is recorded in the results).
        a = (read("auction").select("id", "category", F.col("dateTime").alias("a_time"), "expires")
             .withWatermark("a_time", DELAY).withWatermark("expires", DELAY))
        b = read("bid").withWatermark("dateTime", DELAY).select("auction", "price", "dateTime")
        span = max_auction_length_us(rate)
        joined = (a.join(b, (a["id"] == b["auction"]) & (b["dateTime"] <= a["expires"]) &
                         (b["dateTime"] >= a["expires"] - F.expr(f"INTERVAL {span} MICROSECONDS")), "inner")
                  .where(F.col("dateTime") >= F.col("a_time")))
        closing = joined.groupBy("id", "category", "expires").agg(F.max("price").alias("final"))
        return closing.groupBy("category").agg(F.avg("final").alias("avg_price")), "complete"
    if name == "q5":
        # Bid counts per (sliding window, auction) joined with the
        # per-window maximum of a second read's counts, on (window, count).
        counts = (read("bid").withWatermark("dateTime", DELAY)
                  .groupBy(F.window("dateTime", SIZE, SLIDE), "auction")
                  .agg(F.count(F.lit(1)).alias("num")))
        maxes = (read("bid").withWatermark("dateTime", DELAY)
                 .groupBy(F.window("dateTime", SIZE, SLIDE).alias("max_window"), "auction")
                 .agg(F.count(F.lit(1)).alias("n"))
                 .groupBy("max_window").agg(F.max("n").alias("max_num")))
        return (counts.join(maxes, (counts["window"] == maxes["max_window"]) &
                            (counts["num"] == maxes["max_num"]), "inner")
                .select("auction", "num", "window")), "append"
    if name == "q5-window":
        # q5's window stage alone: bid counts per (sliding window, auction).
        return (read("bid").withWatermark("dateTime", DELAY)
                .groupBy(F.window("dateTime", SIZE, SLIDE), "auction")
                .agg(F.count(F.lit(1)).alias("num"))), "append"
    if name == "q7-window":
        # q7's window stage alone: the highest price per tumbling window.
        return (read("bid").withWatermark("dateTime", DELAY)
                .groupBy(F.window("dateTime", SIZE))
                .agg(F.max("price").alias("max_price"))), "append"
    if name == "q7":
        # Raw bids carrying their tumbling window joined with the
        # per-window maximum price of a second read, on (window, price).
        # The window is this side's event-time column: Spark refuses two
        # (MULTIPLE_EVENT_TIME_COLUMNS), so dateTime is carried as a plain
        # timestamp (an expression: an alias would keep its watermark).
        bids = (read("bid").withWatermark("dateTime", DELAY)
                .select("auction", "price", "bidder",
                        F.timestamp_micros(F.unix_micros("dateTime")).alias("dateTime"), "extra",
                        F.window("dateTime", SIZE).alias("window")))
        maxes = (read("bid").withWatermark("dateTime", DELAY)
                 .groupBy(F.window("dateTime", SIZE).alias("max_window"))
                 .agg(F.max("price").alias("max_price")))
        return (bids.join(maxes, (bids["window"] == maxes["max_window"]) &
                          (bids["price"] == maxes["max_price"]), "inner")
                .select("auction", "price", "bidder", "dateTime", "extra")), "append"
    if name == "q8":
        # Persons per (window, id, name) joined with auctions per (window,
        # seller) on window and id = seller.
        p = (read("person").withWatermark("dateTime", DELAY)
             .groupBy(F.window("dateTime", SIZE), "id", "name").agg(F.count(F.lit(1)).alias("p_count")))
        a = (read("auction").withWatermark("dateTime", DELAY)
             .groupBy(F.window("dateTime", SIZE).alias("a_window"), "seller")
             .agg(F.count(F.lit(1)).alias("a_count")))
        return (p.join(a, (p["window"] == a["a_window"]) & (p["id"] == a["seller"]), "inner")
                .select("id", "name", "window")), "append"
    bids = read("bid")
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


def jvm_peak_rss(pid):
    """The JVM's peak resident set (VmHWM), bytes: process-wide, so
    monotone over the queries of one run."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def run(spark, name, src_dirs, files_per_trigger, schemas, ckpt_root, rate):
    def read(k):
        return (spark.readStream.schema(schemas[k]).option("maxFilesPerTrigger", files_per_trigger)
                .option("pathGlobFilter", "*.parquet").parquet(src_dirs[k]))
    stream, mode = build(name, read, rate)
    ckpt = tempfile.mkdtemp(dir=ckpt_root)
    q = (stream.writeStream.format("noop").outputMode(mode)
         .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
    q.awaitTermination()
    progress = q.recentProgress
    shutil.rmtree(ckpt, ignore_errors=True)
    if q.exception():
        raise RuntimeError(str(q.exception()))
    rows = sum(p["numInputRows"] for p in progress)
    # The sink's rows per batch (-1 when a sink does not report them).
    out = [p.get("sink", {}).get("numOutputRows", -1) for p in progress]
    return rows, len(progress), (sum(out) if out and min(out) >= 0 else None)


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
    rate = man["rate"]
    for name in names:
        try:
            run(spark, name, warm, 1, schemas, root, rate)
        except Exception as e:  # noqa: BLE001 -- a query Spark refuses
            # Spark refuses the query (e.g. q4's Complete aggregation after
            # a stream-stream join): record its error instead of figures.
            print(json.dumps({"engine": "spark", "query": name, "events": man["events"],
                              "error": str(e).strip(), "spark": spark.version}), flush=True)
            continue
        c0, t0 = jvm_cpu_seconds(pid), time.perf_counter()
        try:
            rows, batches, out = run(spark, name, dirs, a.files_per_trigger, schemas, root, rate)
        except Exception as e:  # noqa: BLE001 -- e.g. java.lang.OutOfMemoryError in the state
            print(json.dumps({"engine": "spark", "query": name, "events": man["events"], "failed": True,
                              "error": str(e).strip(), "memory": a.memory, "spark": spark.version}), flush=True)
            continue
        wall, cpu = time.perf_counter() - t0, jvm_cpu_seconds(pid) - c0
        ev = man["events"]
        print(json.dumps({
            "engine": "spark", "query": name, "events": ev, "inputRows": rows, "batches": batches,
            **({"outputRows": out} if out is not None else {}),
            "wallSeconds": wall, "cpuSeconds": cpu, "cores": cpu / wall if wall else 0,
            "eventsPerSecond": ev / wall, "eventsPerSecondPerCore": ev / cpu if cpu else 0,
            "maxRssBytes": jvm_peak_rss(pid), "localCores": a.cores, "stateStore": a.state_store, "spark": spark.version,
        }), flush=True)
    shutil.rmtree(root, ignore_errors=True)
    spark.stop()


if __name__ == "__main__":
    sys.exit(main())
