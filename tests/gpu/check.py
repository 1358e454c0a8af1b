#!/usr/bin/env python3
"""check.py - assertions on the GPU part of a job summary.

usage: check.py SUMMARY_FILE JOB_FILE EXPR
EXPR is a Python expression over the summary `s`, with dev(INDEX) (the
job's entry of that GPU in s["gpu"]["devices"]), proc(PID) (its entry in
s["gpu"]["processes"]), tool(NAME), flag(ID[, key=value]) and near(a, b,
rel).  Exit 0 when it is true, 1 with the values it saw.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import summaries  # noqa: E402

GiB = 1 << 30


def main():
    path, jobfile, expr = sys.argv[1:4]
    s = summaries.load(path, "@" + jobfile)
    g = s.get("gpu") or {}

    def dev(i):
        for d in g.get("devices", []):
            if d["index"] == i and "mig" not in d:
                return d
        sys.exit(f"GPU {i} not among the job's devices: {json.dumps(g.get('devices'))}")

    def mig(uuid):
        for d in g.get("devices", []):
            if d["uuid"] == uuid:
                return d
        sys.exit(f"MIG device {uuid} not among the job's devices: {json.dumps(g.get('devices'))}")

    def proc(pid):
        for p in g.get("processes", []):
            if p["pid"] == int(pid):
                return p
        sys.exit(f"pid {pid} not among the GPU processes: {json.dumps(g.get('processes'))}")

    def tool(name):
        return summaries.tool(s, name)

    def flag(fid, **want):
        for f in s.get("flags") or []:
            if f["id"] == fid and all(f["evidence"].get(k) == v for k, v in want.items()):
                return f
        return None

    def near(a, b, rel):
        return abs(a - b) <= rel * abs(b)

    env = dict(s=s, g=g, dev=dev, mig=mig, proc=proc, tool=tool, flag=flag, near=near, GiB=GiB)
    if not eval(expr, env):
        sys.exit(f"false: {expr}\n  gpu_counting: {s.get('gpu_counting')}\n  gpu: "
                 f"{json.dumps(g)[:1500]}\n  flags: {json.dumps(s.get('flags'))[:1500]}\n"
                 f"  recommendation: {json.dumps(s.get('recommendation'))}")


if __name__ == "__main__":
    main()
