#!/usr/bin/env python3
"""Prints the comparison table of a run.sh result directory: per query,
core count (the RESULTS_DIR/<cores>/ subdirectories) and engine: events,
wall seconds, CPU seconds, events per CPU-second, Millrace's ratio to the
engine (Millrace's events per CPU-second ÷ the engine's; Millrace = the
file-source run), output rows (flagged `≠` when they differ from
Millrace's) and peak RSS.

  python3 summarize.py RESULTS_DIR
"""
import json
import os
import sys

ENGINES = ("millrace", "millrace-gen", "duckdb", "spark", "flink")


def load(d):
    """Result rows of one core count's directory (JSON objects, one a line;
    other lines, e.g. log output, are skipped)."""
    rows = []
    for e in ENGINES:
        p = os.path.join(d, e + ".jsonl")
        if not os.path.exists(p):
            continue
        for line in open(p):
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                r.setdefault("engine", e)
                rows.append(r)
    return rows


def mib(b):
    return f"{b / (1 << 20):,.0f}" if b else ""


def main():
    root = sys.argv[1]
    cores = sorted((int(n) for n in os.listdir(root) if n.isdigit() and os.path.isdir(os.path.join(root, n))))
    by = {}  # query -> cores -> engine -> row
    for c in cores:
        for r in load(os.path.join(root, str(c))):
            by.setdefault(r["query"], {}).setdefault(c, {})[r["engine"]] = r
    hdr = (f"{'query':9} {'cores':>5} {'engine':12} {'events':>10} {'wall s':>7} {'CPU s':>7} "
           f"{'events/CPU-s':>13} {'millrace x':>10} {'out rows':>10} {'':1} {'peak RSS MiB':>12}")
    print(hdr)
    print("-" * len(hdr))
    mismatches = []
    # q5-window sorts after q5's number and before q5 itself
    for q in sorted(by, key=lambda s: (int(s[1:].split('-')[0]), s.count('-') == 0)):
        for c in cores:
            rs = by[q].get(c, {})
            m = rs.get("millrace")
            for eng in ENGINES:
                r = rs.get(eng)
                if not r:
                    continue
                if "error" in r:
                    what = "failed" if r.get("failed") else "not run"
                    print(f"{q:9} {c:>5} {eng:12} {r['events']:>10} {what}: {r['error'].splitlines()[0][:120]}")
                    continue
                ok = m is not None and "error" not in m
                ratio = ""
                if ok and eng != "millrace" and r.get("eventsPerSecondPerCore"):
                    ratio = f"{m['eventsPerSecondPerCore'] / r['eventsPerSecondPerCore']:.2f}"
                out = r.get("outputRows")
                flag = ""
                if ok and out is not None and out != m.get("outputRows"):
                    flag = "≠"
                    mismatches.append(f"{q} {c} core(s): {eng} {out} rows, millrace {m.get('outputRows')}")
                cpu = r.get("cpuSeconds", 0)
                print(f"{q:9} {c:>5} {eng:12} {r['events']:>10} {r['wallSeconds']:>7.2f} {cpu:>7.2f} "
                      f"{r['eventsPerSecondPerCore']:>13,.0f} {ratio:>10} {'' if out is None else out:>10} "
                      f"{flag:1} {mib(r.get('maxRssBytes')):>12}")
            if m and m.get("oracle"):
                print(f"{'':5} {'':>5} millrace oracle: {'ok' if m['oracle']['ok'] else 'MISMATCH'}")
    print()
    if mismatches:
        print("OUTPUT ROWS DIFFER from Millrace's:")
        for s in mismatches:
            print("  " + s)
    else:
        print("output rows: equal to Millrace's everywhere they were reported")
    print("millrace x = Millrace's (file source) events per CPU-second ÷ the engine's. "
          "events/CPU-s = event positions ÷ the process's CPU seconds for the timed run "
          "(JVM engines: after an untimed warm-up run over the first file, so start-up and JIT "
          "warm-up are outside it; DuckDB after a warm-up run over all the files; Millrace after "
          "one run of the query in the same process unless WARMUP=0). Peak RSS: Millrace per query (one process each); DuckDB, "
          "Spark and Flink run all queries in one process, so theirs is the process's peak so far. "
          "spark out rows: the noop sink's numOutputRows; flink out rows: the same SQL in batch mode.")


if __name__ == "__main__":
    main()
