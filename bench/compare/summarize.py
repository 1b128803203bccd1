#!/usr/bin/env python3
"""Prints the comparison table of a run.sh result directory: per query and
engine, events/s, events/s per core (events / CPU seconds), cores used,
output rows, and Millrace's ratio to the engine (per core and wall).

  python3 summarize.py RESULTS_DIR
"""
import json
import os
import sys


def load(d):
    rows = []
    p = os.path.join(d, "millrace.json")
    if os.path.exists(p):
        for r in json.load(open(p)):
            r["engine"] = "millrace"
            rows.append(r)
    for name in ("spark.jsonl", "duckdb.jsonl"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            for line in open(p):
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    return rows


def main():
    d = sys.argv[1]
    rows = load(d)
    by = {}
    for r in rows:
        by.setdefault(r["query"], {})[r["engine"]] = r
    hdr = f"{'query':6} {'engine':9} {'events':>10} {'wall s':>8} {'cores':>5} {'events/s':>12} {'events/s/core':>14} {'out rows':>10} {'millrace x (per core)':>22} {'millrace x (wall)':>18}"
    print(hdr)
    print("-" * len(hdr))
    for q in sorted(by, key=lambda s: int(s[1:])):
        m = by[q].get("millrace")
        for eng in ("millrace", "spark", "duckdb"):
            r = by[q].get(eng)
            if not r:
                continue
            if "error" in r:
                # The engine refused the query (spark_nexmark.py records why).
                what = "failed" if r.get("failed") else "not expressible in Spark Structured Streaming"
                print(f"{q:6} {eng:9} {r['events']:>10} {what}: {r['error'].splitlines()[0][:160]}")
                continue
            out = r.get("outputRows", "")
            rc = rw = ""
            if m and eng != "millrace" and "error" not in m and r["eventsPerSecondPerCore"] and r["eventsPerSecond"]:
                rc = f"{m['eventsPerSecondPerCore'] / r['eventsPerSecondPerCore']:.2f}"
                rw = f"{m['eventsPerSecond'] / r['eventsPerSecond']:.2f}"
            print(f"{q:6} {eng:9} {r['events']:>10} {r['wallSeconds']:>8.2f} {r['cores']:>5.2f} "
                  f"{r['eventsPerSecond']:>12,.0f} {r['eventsPerSecondPerCore']:>14,.0f} {str(out):>10} {rc:>22} {rw:>18}")
        if m and m.get("oracle"):
            print(f"{'':6} millrace oracle: {'ok' if m['oracle']['ok'] else 'MISMATCH'}")
    print("\nspark output rows: the noop sink's numOutputRows summed over batches (blank when "
          "not reported; for Update mode, q12, rows updated per trigger); duckdb's q12 is one "
          "window (a batch has one processing time), so its rows differ from the streams'.")


if __name__ == "__main__":
    main()
