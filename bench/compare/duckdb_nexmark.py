#!/usr/bin/env python3
"""DuckDB over the exported Parquet events: the batch ceiling.

Views: bids (the export directory's bid-*.parquet), persons and auctions
(its person/ and auction/ subdirectories, when exported: q3).

Runs each query once over all the files (after one untimed warm-up run that
also loads the file metadata into the OS cache), reading every output value
(count(*) and sum(hash(row))), with DuckDB's thread count set to the cores
given. Prints one JSON object per query (events/s counts event positions,
as Millrace does; events/s/core divides by the process CPU seconds).

  python3 duckdb_nexmark.py --dir /tmp/nexmark-10m --threads 2 --queries q0,q1,q2,q11,q12
"""
import argparse
import json
import os
import resource
import sys
import time

import duckdb

from queries_sql import INPUTS, QUERIES


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="export directory (manifest.json + bid-*.parquet)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--queries", default="q0,q1,q2,q11,q12")
    ap.add_argument("--no-warmup", action="store_true")
    a = ap.parse_args()
    man = json.load(open(os.path.join(a.dir, "manifest.json")))
    con = duckdb.connect()
    con.execute(f"SET threads = {a.threads}")
    con.execute("SET TimeZone = 'UTC'")
    glob = os.path.join(a.dir, "bid-*.parquet")
    con.execute(f"CREATE VIEW bids AS SELECT * FROM read_parquet('{glob}')")
    # Persons and auctions (q3, q4, q8), exported to person/ and auction/ when a
    # query reads them.
    for kind, view in (("person", "persons"), ("auction", "auctions")):
        d = os.path.join(a.dir, kind)
        if os.path.exists(os.path.join(d, "manifest.json")):
            glob = os.path.join(d, f"{kind}-*.parquet")
            con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet('{glob}')")
    for name in a.queries.split(","):
        name = name.strip()
        if name not in QUERIES:
            print(f"duckdb: unknown query {name}", file=sys.stderr)
            continue
        sql = f"SELECT count(*) AS n, sum(hash(t)) AS h FROM ({QUERIES[name]}) t"
        if not a.no_warmup:
            con.execute(sql).fetchall()
        c0, t0 = cpu_seconds(), time.perf_counter()
        n, h = con.execute(sql).fetchone()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        ev = man["events"]
        rows = sum(json.load(open(os.path.join(a.dir, "" if k == "bid" else k, "manifest.json")))["rows"]
                   for k in INPUTS.get(name, ("bid",)))
        print(json.dumps({
            "engine": "duckdb", "query": name, "events": ev, "inputRows": rows,
            "outputRows": n, "wallSeconds": wall, "cpuSeconds": cpu,
            "cores": cpu / wall if wall else 0,
            "eventsPerSecond": ev / wall, "eventsPerSecondPerCore": ev / cpu if cpu else 0,
            # the process's peak resident set (Linux: KiB), monotone over queries
            "maxRssBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "threads": a.threads, "duckdb": duckdb.__version__,
        }), flush=True)


if __name__ == "__main__":
    main()
