#!/usr/bin/env python3
"""Flink (PyFlink, apache-flink from PyPI) over the exported Parquet bids.

Streaming mode (the Table API's streaming runtime over the filesystem
connector's bounded Parquet source; Flink has no micro-batch triggers, so
"one file per trigger" becomes one file per source split), a mini-cluster
in the PyFlink JVM with default parallelism = CORES, and the `blackhole`
sink. Flink's Parquet format needs flink-sql-parquet and the Hadoop client
jars (Maven Central; run.sh fetches them with mvn into --jars).

For each query: one untimed warm-up run over the first file (class
loading, JIT), then the timed run over all files; CPU seconds are the
JVM's (/proc/<pid>/stat utime+stime), events/s/core = events / JVM CPU
seconds. The blackhole sink counts nothing, so the output rows are counted
by a separate untimed run of the same SQL in batch mode (SELECT count(*)
FROM (query)): the queries filter their windows to those closed by the
final watermark of the other engines (max(dateTime) − 4 s, floored to the
millisecond), so batch and streaming outputs hold the same final rows.
Peak RSS is the JVM's VmHWM after the query (process-wide, so monotone
over the queries of one run).

Queries: q0, q1, q2; q5 (hot items: bid counts per 10 s window sliding by
2 s and auction, kept where the count is its window's maximum) and q7
(the bids whose price is their 10 s tumbling window's maximum), written
with window TVFs and a regular join back, as Flink's own Nexmark SQL does.

  python flink_nexmark.py --dir /tmp/nexmark-compare-… --cores 2 --jars DIR --queries q0,q1,q2,q5,q7
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time

# bench/nexmark's WatermarkDelay in µs.
DELAY_US = 4_000_000

BID_COLUMNS = """
    auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
    `dateTime` TIMESTAMP(6), extra STRING,
    ts AS CAST(`dateTime` AS TIMESTAMP(3)),
    WATERMARK FOR ts AS ts - INTERVAL '4' SECOND"""


def queries(bound):
    """SQL of each query over `bids`; bound is the final watermark as a
    TIMESTAMP literal (windows whose end is after it are not emitted)."""
    closed = f"window_end <= TIMESTAMP '{bound}'"
    return {
        "q0": "SELECT auction, bidder, price, `dateTime`, extra FROM bids",
        "q1": "SELECT auction, bidder, price * 0.908 AS price, `dateTime`, extra FROM bids",
        "q2": "SELECT auction, price FROM bids WHERE MOD(auction, 123) = 0",
        "q5": f"""
            SELECT C.auction, C.num, C.window_start AS starttime, C.window_end AS endtime
            FROM (
              SELECT auction, COUNT(*) AS num, window_start, window_end
              FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
              GROUP BY auction, window_start, window_end) C
            JOIN (
              SELECT window_start, window_end, MAX(num) AS max_num FROM (
                SELECT auction, COUNT(*) AS num, window_start, window_end
                FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
                GROUP BY auction, window_start, window_end)
              GROUP BY window_start, window_end) M
            ON C.window_start = M.window_start AND C.window_end = M.window_end AND C.num = M.max_num
            WHERE C.{closed}""",
        "q5-window": f"""
            SELECT auction, num, window_start AS starttime, window_end AS endtime FROM (
              SELECT auction, COUNT(*) AS num, window_start, window_end
              FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
              GROUP BY auction, window_start, window_end)
            WHERE {closed}""",
        "q7-window": f"""
            SELECT max_price, window_start AS starttime, window_end AS endtime FROM (
              SELECT MAX(price) AS max_price, window_start, window_end
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
              GROUP BY window_start, window_end)
            WHERE {closed}""",
        "q7": f"""
            SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra
            FROM (
              SELECT auction, price, bidder, `dateTime`, extra, window_start, window_end
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) B
            JOIN (
              SELECT window_start, window_end, MAX(price) AS max_price
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
              GROUP BY window_start, window_end) M
            ON B.window_start = M.window_start AND B.window_end = M.window_end AND B.price = M.max_price
            WHERE B.{closed}""",
    }


def final_watermark(files):
    """Millrace's final watermark: max(dateTime) − 4 s, floored to the
    millisecond, as a Flink TIMESTAMP literal (UTC)."""
    import datetime

    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    mx = max(pc.max(pq.read_table(f, columns=["dateTime"])["dateTime"]).value for f in files)
    us = (mx - DELAY_US) // 1000 * 1000
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=us)
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def jvm_stat(pid):
    """(CPU seconds, VmHWM bytes) of the JVM."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
    return cpu, hwm


def env(streaming, cores, jars):
    from pyflink.table import EnvironmentSettings, TableEnvironment

    s = EnvironmentSettings.in_streaming_mode() if streaming else EnvironmentSettings.in_batch_mode()
    t = TableEnvironment.create(s)
    c = t.get_config()
    c.set("pipeline.jars", ";".join("file://" + os.path.abspath(j) for j in jars))
    c.set("pipeline.classpaths", ";".join("file://" + os.path.abspath(j) for j in jars))
    c.set("parallelism.default", str(cores))
    c.set("table.exec.resource.default-parallelism", str(cores))
    c.set("table.local-time-zone", "UTC")
    return t


def register(t, path):
    t.execute_sql("DROP TABLE IF EXISTS bids")
    t.execute_sql(f"""CREATE TABLE bids ({BID_COLUMNS}) WITH (
        'connector' = 'filesystem', 'path' = 'file://{path}', 'format' = 'parquet',
        'parquet.utc-timezone' = 'true')""")


def run_stream(t, path, sql):
    from pyflink.table import TableDescriptor

    register(t, path)
    # a descriptor without a schema takes the query's
    t.sql_query(sql).execute_insert(TableDescriptor.for_connector("blackhole").build()).wait()


def count_batch(t, path, sql):
    register(t, path)
    with t.execute_sql(f"SELECT COUNT(*) FROM ({sql})").collect() as it:
        return next(iter(it))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="export directory (manifest.json + bid-*.parquet)")
    ap.add_argument("--cores", type=int, default=os.cpu_count())
    ap.add_argument("--queries", default="q0,q1,q2,q5-window,q7-window,q5,q7")
    ap.add_argument("--jars", required=True, help="directory of flink-sql-parquet and the Hadoop client jars")
    ap.add_argument("--no-warmup", action="store_true")
    a = ap.parse_args()
    man = json.load(open(os.path.join(a.dir, "manifest.json")))
    jars = sorted(glob.glob(os.path.join(a.jars, "*.jar")))
    files = sorted(glob.glob(os.path.join(os.path.abspath(a.dir), "bid-*.parquet")))
    # The filesystem connector reads every file of its directory:
    # directories of symlinks hold the bids alone (all, and the first one
    # for the warm-up).
    root = tempfile.mkdtemp(prefix="nexmark-flink-")
    all_dir, warm_dir = os.path.join(root, "all"), os.path.join(root, "warm")
    for d, fs in ((all_dir, files), (warm_dir, files[:1])):
        os.makedirs(d)
        for f in fs:
            os.symlink(f, os.path.join(d, os.path.basename(f)))
    qs = queries(final_watermark(files))
    st = env(True, a.cores, jars)
    bt = env(False, a.cores, jars)
    from pyflink.java_gateway import get_gateway

    pid = get_gateway().jvm.java.lang.ProcessHandle.current().pid()
    from pyflink.version import __version__ as version
    for name in [n.strip() for n in a.queries.split(",")]:
        ev = man["events"]
        if name not in qs:
            print(json.dumps({"engine": "flink", "query": name, "events": ev,
                              "error": "not written for Flink in flink_nexmark.py"}), flush=True)
            continue
        try:
            if not a.no_warmup:
                run_stream(st, warm_dir, qs[name])
            c0, _ = jvm_stat(pid)
            t0 = time.perf_counter()
            run_stream(st, all_dir, qs[name])
            wall = time.perf_counter() - t0
            c1, hwm = jvm_stat(pid)
            out = count_batch(bt, all_dir, qs[name])
        except Exception as e:  # noqa: BLE001 -- recorded in the results
            print(json.dumps({"engine": "flink", "query": name, "events": ev, "failed": True,
                              "error": str(e).strip()[:2000]}), flush=True)
            continue
        cpu = c1 - c0
        print(json.dumps({
            "engine": "flink", "query": name, "events": ev, "outputRows": out,
            "wallSeconds": wall, "cpuSeconds": cpu, "cores": cpu / wall if wall else 0,
            "eventsPerSecond": ev / wall, "eventsPerSecondPerCore": ev / cpu if cpu else 0,
            "maxRssBytes": hwm, "parallelism": a.cores, "flink": version,
        }), flush=True)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
