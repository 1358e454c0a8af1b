#!/usr/bin/env python3
"""same_rows.py LAKE_JSON ARCHIVE_JSON - two `tracer sweep --json`
answers (the datalake's and the archive's) have the same rows, in the
same order, numbers within 1e-6 (relative above 1); none is no answer.
Prints how many rows, or the two row lists and exits 1."""
import json
import sys


def same(x, y):
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= 1e-6 * max(1.0, abs(x))
    return x == y


a, b = (json.load(open(p))["rows"] for p in sys.argv[1:3])
if not a or len(a) != len(b) or not all(same(x, y) for x, y in zip(a, b)):
    sys.exit(f"datalake {a}\narchive {b}")
print(f"{len(a)} rows")
