#!/usr/bin/env python3
"""expect.py - check `tracer report --json` against the same sums
computed here, independently, from the archive's files.

usage: expect.py REPORT.json SINCE_SECONDS BY FILE...
Exit 0 when every group matches (keys, jobs, failures, CPU, wall,
core-seconds, efficiencies, I/O, flags, cost), 1 with the differences.
"""
import json
import sys
import time


def summaries(files):
    for path in files:
        for line in open(path, encoding="utf-8"):
            try:
                s = json.loads(line)
            except ValueError:
                continue  # tracer skips unreadable lines too
            if isinstance(s, dict):
                yield s


def key(s, by):
    ident = s.get("identity", {})
    k = {"all": "all", "task": ident.get("task_name"), "user": ident.get("user"),
         "pipeline": ident.get("pipeline"),
         "run": ident.get("run_id") or ident.get("run_name")}[by]
    return k or "-"


def core_s(s):
    cpus = s["identity"].get("allocation", {}).get("cpus") or s["host"]["cpus"]
    return s["wall_s"] * cpus


def failed(s):
    if "state" in s:
        return s["state"] != "COMPLETED"
    return s["exit"]["signal"] is not None or (s["exit"]["code"] or 0) != 0


def expected(files, since, by):
    start = time.time() - since
    groups = {}
    for s in summaries(files):
        if s["identity"].get("scheduler") == "host" or int(s["end_ns"]) / 1e9 < start:
            continue
        rows = [(t["tool"], t) for t in s["tools"]] if by == "tool" else [(key(s, by), None)]
        for k, t in rows:
            g = groups.setdefault(k, {"jobs": 0, "failed": 0, "cpu_s": 0.0, "wall_s": 0.0,
                                      "core_s": 0.0, "read_bytes": 0, "write_bytes": 0,
                                      "flags": {}, "cost": None, "processes": 0})
            g["jobs"] += 1
            g["core_s"] += core_s(s)
            src = t if t else s["totals"]
            g["cpu_s"] += src["cpu_s"]
            g["read_bytes"] += src["rchar"]
            g["write_bytes"] += src["wchar"]
            if t:
                g["wall_s"] += t["wall_s"]
                g["processes"] += t["processes"]
                g["failed"] += sum(e["count"] for e in t["exit_codes"]
                                   if e.get("other") or e.get("signal") is not None or e.get("code"))
                continue
            g["wall_s"] += s["wall_s"]
            g["failed"] += failed(s)
            for f in s.get("flags", []):
                g["flags"][f["id"]] = g["flags"].get(f["id"], 0) + 1
            if "cost" in s:
                g["cost"] = (g["cost"] or 0) + s["cost"]["total"]
    return groups


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def main(argv):
    report, since, by, files = json.load(open(argv[1])), float(argv[2]), argv[3], argv[4:]
    want = expected(files, since, by)
    got = {g[by]: g for g in report["groups"]}
    errors = []
    if set(got) != set(want):
        errors.append(f"groups {sorted(got)} != {sorted(want)}")
    if report["jobs"] != len([s for s in summaries(files)
                              if s["identity"].get("scheduler") != "host"
                              and int(s["end_ns"]) / 1e9 >= time.time() - since]):
        errors.append(f"jobs {report['jobs']}")
    failed_key = "failed_processes" if by == "tool" else "failed"
    for k in set(got) & set(want):
        g, w = got[k], want[k]
        for f in ("jobs", "cpu_s", "wall_s", "core_s", "read_bytes", "write_bytes"):
            if not close(g[f], w[f]):
                errors.append(f"{k}: {f} {g[f]} != {w[f]}")
        if g[failed_key] != w["failed"]:
            errors.append(f"{k}: {failed_key} {g[failed_key]} != {w['failed']}")
        if w["core_s"] and not close(g["cpu_efficiency"], w["cpu_s"] / w["core_s"]):
            errors.append(f"{k}: cpu_efficiency {g['cpu_efficiency']}")
        if by == "tool" and g["processes"] != w["processes"]:
            errors.append(f"{k}: processes {g['processes']} != {w['processes']}")
        if by != "tool" and g["flags"] != w["flags"]:
            errors.append(f"{k}: flags {g['flags']} != {w['flags']}")
        if w["cost"] is None and "cost" in g:
            errors.append(f"{k}: cost {g['cost']} without prices")
        if w["cost"] is not None and not close(g.get("cost", -1), w["cost"]):
            errors.append(f"{k}: cost {g.get('cost')} != {w['cost']}")
    for e in errors:
        print(e)
    print(f"--by {by}: {len(got)} groups, {report['jobs']} jobs, {report['files']} files")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
