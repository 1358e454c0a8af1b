#!/usr/bin/env python3
"""fixtures.py TEMPLATE OUT - five job summaries for the CLI suite, made
from a real summary (TEMPLATE, one NDJSON line written by tracer-wrap) by
changing only who, when, state and names.  Times are relative to now, so
that now-1day and friends select known jobs; j4 is at fixed ISO times.

job  user(uid)    state          name   run (name)      start .. end
j4   carol(1003)  (none)         "a,b"  -               2026-01-10T10:00Z .. 12:00Z
j1   alice(1001)  COMPLETED      align  R1              now-3d .. now-3d+1h
j2   bob(1002)    FAILED         sort   R1              now-2h .. now-1h
j3   alice(1001)  OUT_OF_MEMORY  align  R2 (nightly)    now-30min .. now-10min
j5   bob(1002)    CANCELLED      call   R2              now-5min .. now-1min
"""
import json
import sys
import time

NS = 1_000_000_000


def iso(ns):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // NS)) + ".000Z"


def main():
    template = json.loads(open(sys.argv[1]).readline())
    now = time.time_ns()
    jan = 1_768_039_200 * NS  # 2026-01-10T10:00:00Z
    jobs = [
        ("j4", "carol", 1003, None, 'a,b "quoted"', None, None, jan, jan + 2 * 3600 * NS),
        ("j1", "alice", 1001, "COMPLETED", "align", "R1", None,
         now - 3 * 86400 * NS, now - 3 * 86400 * NS + 3600 * NS),
        ("j2", "bob", 1002, "FAILED", "sort", "R1", None, now - 2 * 3600 * NS, now - 3600 * NS),
        ("j3", "alice", 1001, "OUT_OF_MEMORY", "align", "R2", "nightly",
         now - 1800 * NS, now - 600 * NS),
        ("j5", "bob", 1002, "CANCELLED", "call", "R2", None, now - 300 * NS, now - 60 * NS),
    ]
    with open(sys.argv[2], "w") as out:
        for uid, user, num, state, name, run, run_name, start, end in jobs:
            s = json.loads(json.dumps(template))
            s["job"] = uid
            ident = s["identity"]
            for k in ("run_id", "run_name"):
                ident.pop(k, None)
            ident.update(user=user, uid=num, task_name=name)
            if run:
                ident["run_id"] = run
            if run_name:
                ident["run_name"] = run_name
            s.pop("state", None)
            if state:
                s["state"] = state
            s.update(start=iso(start), end=iso(end), start_ns=start, end_ns=end,
                     wall_s=(end - start) / NS)
            out.write(json.dumps(s, separators=(",", ":")) + "\n")


main()
