#!/usr/bin/env python3
"""check.py - assertions on a job summary written by tracerd.

usage: check.py SUMMARY_FILE JOB_FILE CHECK [ARGS...]
Finds the summary of the job named in JOB_FILE (written by `tracer run
--job-file`) and runs one check; exit 0 when it holds, 1 with the reason.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import summaries  # noqa: E402
from summaries import tool, within  # noqa: E402,F401


def load(path, jobfile):
    return summaries.load(path, "@" + jobfile)


def exits(t):
    out = {}
    for e in t["exit_codes"]:
        key = f"sig{e['signal']}" if e.get("signal") is not None else str(e.get("code"))
        out[key] = out.get(key, 0) + e["count"]
    return out


def main():
    path, jobfile, check, *args = sys.argv[1:]
    s = load(path, jobfile)
    if check == "storm":
        n, truth = int(args[0]), json.load(open(args[1]))
        t = tool(s, args[2])
        if t["processes"] != n:
            sys.exit(f"{args[2]}: {t['processes']} processes recorded, {n} ran")
        if not t["path"].endswith("/" + args[2]):
            sys.exit(f"executable path {t['path']}")
        got = exits(t)
        if got != truth["exit_counts"]:
            sys.exit(f"exit codes {got} != ground truth {truth['exit_counts']}")
        if s["drops"]["events"] != 0:
            sys.exit(f"drops: {s['drops']}")
        print(f"{n} processes, exit codes {got}, drops 0")
    elif check == "cpu":
        truth = json.load(open(args[0]))
        within("cpu_s", tool(s, args[1])["cpu_s"], truth["cpu_s"], 0.02)
    elif check == "rss":
        truth = json.load(open(args[0]))
        within("peak_rss_bytes", tool(s, args[1])["peak_rss_bytes"], truth["maxrss_kb"] * 1024, 0.02)
    elif check == "io":
        n, t = int(args[0]), tool(s, args[1])
        base = tool(load(path, args[2]), args[1])
        r, w = t["rchar"] - base["rchar"], t["wchar"] - base["wchar"]
        if r != n or w != n:
            sys.exit(f"rchar {t['rchar']} - {base['rchar']}, wchar {t['wchar']} - {base['wchar']}: want {n} each")
        print(f"rchar and wchar: {n} bytes more than the same binary doing no I/O (base {base['rchar']} B of exec reads)")
    elif check == "exit":
        t, want = tool(s, args[0]), args[1]
        got = exits(t)
        if want not in got:
            sys.exit(f"{args[0]} exits {got}, want {want}")
        job_want = args[2] if len(args) > 2 else None
        if job_want:
            e = s["exit"]
            job_got = f"sig{e['signal']}" if e.get("signal") is not None else str(e.get("code"))
            if job_got != job_want:
                sys.exit(f"job exit {e}, want {job_want}")
    elif check == "oom":
        victims = [p for p in s["process_tree"] if p.get("oom_killed")]
        if not victims or s["oom_kills"] < 1:
            sys.exit(f"no OOM victim recorded (oom_kills={s['oom_kills']})")
        if victims[0].get("signal") != 9:
            sys.exit(f"victim {victims[0]['tool']} signal {victims[0].get('signal')}")
        print(f"victim {victims[0]['tool']} pid {victims[0]['pid']} killed by signal 9")
    elif check == "daemon":
        t = tool(s, args[0])
        got = exits(t)
        if t["processes"] != 3 or got.get("7") != 1:
            sys.exit(f"daemonizer: {t['processes']} processes, exits {got}")
        print(f"3 processes of the daemonizer, the daemon exited 7 inside the job")
    elif check == "outlived":
        procs = [p for p in s["process_tree"] if p.get("outlived")]
        if not procs or s["processes"]["outlived"] < 1:
            sys.exit("no outliving process listed")
        if args and int(args[0]) not in [p["pid"] for p in procs]:
            sys.exit(f"pid {args[0]} not among the outliving: {[(p['pid'], p['tool']) for p in procs]}")
        print(f"outliving: {[(p['pid'], p['tool']) for p in procs]}")
    elif check == "cgroup":
        m = s["memory"]
        if "cgroup" not in m:
            sys.exit(f"no cgroup counters in memory: {m}")
        within("cgroup_peak_bytes", m["cgroup_peak_bytes"], int(args[0]), 0.10)
        print(f"cgroup {m['cgroup']}")
    elif check == "tool":
        t = tool(s, args[0])
        if len(args) > 1 and not (t.get("interpreter") or "").split("/")[-1].startswith(args[1]):
            sys.exit(f"interpreter {t.get('interpreter')!r}, want {args[1]}")
        if len(args) > 2 and t["processes"] != int(args[2]):
            sys.exit(f"{t['processes']} processes, want {args[2]}")
    elif check == "notool":
        names = [t["tool"] for t in s["tools"]]
        if args[0] in names:
            sys.exit(f"tool {args[0]!r} in the summary: {names}")
    elif check == "cmdline":
        # a process of the tool whose recorded command line holds the text
        lines = [p.get("cmdline") or "" for p in s["process_tree"] if p["tool"] == args[0]]
        if not any(args[1] in c for c in lines):
            sys.exit(f"no {args[0]} process with {args[1]!r} in its command line: {lines}")
        print(f"{args[0]}: {lines}")
    elif check == "registrant":
        # the registrant (tracer run) is in the tree, marked, and no tool;
        # its exit status and the job's CPU are not its own
        names = [t["tool"] for t in s["tools"]]
        marked = [p for p in s["process_tree"] if p.get("registrant")]
        if args[0] in names:
            sys.exit(f"registrant {args[0]!r} listed as a tool: {names}")
        if len(marked) != 1 or marked[0]["tool"] != args[0]:
            sys.exit(f"want one registrant {args[0]!r}, got {[(p['tool'], p['pid']) for p in marked]}")
        work = sum(t["cpu_s"] for t in s["tools"])
        if abs(s["totals"]["cpu_s"] - work) > 1e-6:
            sys.exit(f"totals.cpu_s {s['totals']['cpu_s']} != sum over tools {work}")
        print(f"registrant {args[0]} pid {marked[0]['pid']}; tools {names}")
    elif check == "absent":
        raw = open(path, "rb").read()
        if args[0].encode() in raw:
            sys.exit(f"{args[0]!r} found in {path}")
    else:
        sys.exit(f"unknown check {check}")


main()
