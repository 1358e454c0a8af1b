#!/usr/bin/env python3
"""check.py - assertions on the summaries of the containers suite.

usage: check.py SUMMARY_FILE JOB_ID CHECK [ARGS...]
JOB_ID is a job uid, or @FILE to read it from FILE (tracer run
--job-file).  Exit 0 when the check holds, 1 with the reason.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from summaries import load  # noqa: E402


def tools(s):
    return [t["tool"] for t in s.get("tools", [])]


def procs(s):
    return s.get("process_tree", [])


def main():
    path, ref, what, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    s = load(path, ref)
    if what == "tool":
        # tool NAME PATH: a tool of that name whose executable is PATH
        name, exe = args
        for t in s.get("tools", []):
            if t["tool"] == name:
                if t.get("path") != exe:
                    sys.exit(f"tool {name}: path {t.get('path')!r}, want {exe!r}")
                return
        sys.exit(f"no tool {name!r}; tools: {tools(s)}")
    if what == "no-tool":
        if args[0] in tools(s):
            sys.exit(f"tool {args[0]!r} is in the job: {tools(s)}")
        return
    if what == "container":
        # container RUNTIME ID_PREFIX [IMAGE]
        c = s.get("container")
        if not c:
            sys.exit(f"no container object; keys: {sorted(s)}")
        if c.get("runtime") != args[0]:
            sys.exit(f"container runtime {c.get('runtime')!r}, want {args[0]!r}: {c}")
        if not c.get("id", "").startswith(args[1]):
            sys.exit(f"container id {c.get('id')!r}, want {args[1]!r}: {c}")
        if len(args) > 2 and c.get("image") != args[2]:
            sys.exit(f"container image {c.get('image')!r}, want {args[2]!r}: {c}")
        return
    if what == "container-counters":
        cg = (s.get("container") or {}).get("cgroup", {})
        if not cg.get("memory_peak_bytes") or "cpu_s" not in cg:
            sys.exit(f"container cgroup without counters: {cg}")
        return
    if what == "exit":
        ex = s.get("exit", {})
        if str(ex.get("code")) != args[0]:
            sys.exit(f"job exit {ex}, want code {args[0]}")
        return
    if what == "identity":
        # identity KEY VALUE (a field of the job's identity, as the summary names it)
        blob = json.dumps(s)
        if f'"{args[0]}": "{args[1]}"' not in blob and f'"{args[0]}": {args[1]}' not in blob:
            sys.exit(f"{args[0]}={args[1]} not in the summary: {blob[:2000]}")
        return
    sys.exit(f"unknown check {what}")


if __name__ == "__main__":
    main()
