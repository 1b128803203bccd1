"""Row helpers shared by the interop tests: rows from delta-rs/pyarrow,
Spark and lakectl in one canonical form (sorted JSON strings)."""
import datetime
import decimal
import json
import math
import subprocess

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def norm(v):
    """Normalise a pyarrow Python value like lakectl prints it."""
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return (v - EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, decimal.Decimal):
        return str(v)  # with its scale: 580.70
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        if v.is_integer():
            return int(v)  # Go's JSON prints 2.0 as 2
    return v


def canon(rows):
    """Rows as a sorted list of canonical JSON strings."""
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def arrow_rows(table):
    return canon({k: norm(v) for k, v in r.items()} for r in table.to_pylist())


def lakectl_rows(lakectl, *args):
    out = subprocess.run([lakectl, *args], check=True, capture_output=True, text=True).stdout
    return canon({k: norm(v) for k, v in r.items()} for r in json.loads(out))
