#!/usr/bin/env python3
"""jobsteps.py TEMPLATE OUT - Slurm jobs of several steps and nodes for
the CLI suite's job view checks, made from a real summary (TEMPLATE, one
NDJSON line written by tracer-wrap) by changing who, where, when and the
numbers the job view adds up.  Times are fixed (2026-01-12, UTC); every
step is alice's, in partition debug, account proj1 (the array's: proj2).

job   step   host  CPUs  mem    cpu_s  peak   state      exit
7001  batch  n1    4     8 GiB  100    1 GiB  COMPLETED  0
7001  0      n1    4     8 GiB  400    2 GiB  COMPLETED  0
7001  1      n1    4     8 GiB  500    3 GiB  FAILED     2
7002  batch  n1    2     4 GiB  10     1 GiB  COMPLETED  0
7002  0      n1    2     4 GiB  300    2 GiB  COMPLETED  0
7002  0      n2    2     4 GiB  290    3 GiB  COMPLETED  0
7011  batch  n1    1     2 GiB  50     1 GiB  COMPLETED  0   (array 7010, task 1)
7012  batch  n2    1     2 GiB  60     1 GiB  COMPLETED  0   (array 7010, task 2)
"""
import json
import sys
import uuid

NS = 1_000_000_000
GIB = 1 << 30
T0 = 1_768_212_000 * NS  # 2026-01-12T10:00:00Z

STEPS = [
    # job, step, host, cpus, mem GiB, start s, end s, cpu_s, peak GiB, state, exit, array
    ("7001", "batch", "n1", 4, 8, 0, 1000, 100, 1, "COMPLETED", 0, None),
    ("7001", "0", "n1", 4, 8, 10, 400, 400, 2, "COMPLETED", 0, None),
    ("7001", "1", "n1", 4, 8, 400, 990, 500, 3, "FAILED", 2, None),
    ("7002", "batch", "n1", 2, 4, 2000, 2600, 10, 1, "COMPLETED", 0, None),
    ("7002", "0", "n1", 2, 4, 2010, 2590, 300, 2, "COMPLETED", 0, None),
    ("7002", "0", "n2", 2, 4, 2010, 2595, 290, 3, "COMPLETED", 0, None),
    ("7011", "batch", "n1", 1, 2, 3000, 3100, 50, 1, "COMPLETED", 0, ("7010", 1)),
    ("7012", "batch", "n2", 1, 2, 3000, 3200, 60, 1, "COMPLETED", 0, ("7010", 2)),
]


def iso(ns):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // NS)) + ".000Z"


def main():
    template = json.loads(open(sys.argv[1]).readline())
    with open(sys.argv[2], "w") as out:
        for job, step, host, cpus, mem, t0, t1, cpu, peak, state, code, arr in STEPS:
            s = json.loads(json.dumps(template))
            start, end = T0 + t0 * NS, T0 + t1 * NS
            s["job"] = f"n-{job}-{step}-{host}"
            s["summary_id"] = str(uuid.uuid4())
            ident = s["identity"]
            for k in ("run_id", "run_name", "labels"):
                ident.pop(k, None)
            ident.update(scheduler="slurm", cluster="c1", job_id=job, step_id=step,
                         user="alice", uid=1001, task_name="align", queue="debug",
                         account="proj2" if arr else "proj1",
                         allocation={"cpus": cpus, "mem_bytes": mem * GIB,
                                     "time_limit_s": 7200})
            if arr:
                ident.update(array_job_id=arr[0], array_index=arr[1])
            s["host"]["hostname"] = host
            s["host"]["cpus"] = 8
            s.update(start=iso(start), end=iso(end), start_ns=str(start), end_ns=str(end),
                     wall_s=float(t1 - t0), state=state,
                     exit={"status": code * 256, "code": code, "signal": None})
            s["totals"].update(cpu_s=float(cpu), user_s=float(cpu), sys_s=0.0,
                               max_rss_bytes=peak * GIB)
            s["memory"] = {"peak_bytes": peak * GIB, "samples": 3,
                           "allocated_bytes": mem * GIB, "efficiency": peak / mem}
            s["cpu_efficiency"] = cpu / (cpus * (t1 - t0))
            s["cpu_efficiency_basis"] = "allocation"
            for t in s["tools"]:
                t.update(cpu_s=float(cpu), user_s=float(cpu), sys_s=0.0,
                         peak_rss_bytes=peak * GIB, wall_s=float(t1 - t0),
                         first_start=iso(start), last_end=iso(end))
            out.write(json.dumps(s, separators=(",", ":")) + "\n")


main()
