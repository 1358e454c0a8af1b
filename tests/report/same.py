#!/usr/bin/env python3
"""same.py - two `tracer report --json` answers (the local archive and
ClickHouse) give the same groups and sums (and flags, but by tool).

usage: same.py BY FILE_REPORT.json CLICKHOUSE_REPORT.json
"""
import json
import sys


def close(a, b):
    return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))


def main(argv):
    by, a, b = argv[1], json.load(open(argv[2])), json.load(open(argv[3]))
    ga = {g[by]: g for g in a["groups"]}
    gb = {g[by]: g for g in b["groups"]}
    errors = []
    if a["jobs"] != b["jobs"]:
        errors.append(f"jobs {a['jobs']} (file) != {b['jobs']} (ClickHouse)")
    if set(ga) != set(gb):
        errors.append(f"groups {sorted(ga)} != {sorted(gb)}")
    for k in set(ga) & set(gb):
        x, y = ga[k], gb[k]
        for f in ("jobs", "failed", "failed_processes", "processes"):
            if x.get(f) != y.get(f):
                errors.append(f"{k}: {f} {x.get(f)} != {y.get(f)}")
        for f in ("cpu_s", "wall_s", "core_s", "read_bytes", "write_bytes", "peak_bytes"):
            if not close(x[f], y[f]):
                errors.append(f"{k}: {f} {x[f]} != {y[f]}")
        if by != "tool" and x.get("flags") != y.get("flags"):
            errors.append(f"{k}: flags {x.get('flags')} != {y.get('flags')}")
    nflags = sum(sum((g.get("flags") or {}).values()) for g in a["groups"])
    for e in errors:
        print(e)
    print(f"--by {by}: {len(ga)} groups, {a['jobs']} jobs, {nflags} flags, same from both")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
