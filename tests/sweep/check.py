#!/usr/bin/env python3
"""check.py ANSWER_JSON CASE SOURCE BY USERS UA UB - the answer of
`tracer sweep --json` is CASE's expected one (the known jobs of
tests/sweep/jobs.py, prices 0.05 per CPU-hour and 0.01 per GiB-hour):
rows in that order with those hours, jobs, limits hit, worst job and
costs (to 1e-4), from SOURCE (datalake, archive), by BY; USERS "all"
(root, admin_group) or "A"/"B" (that user's rows only).  By tool, also
each tool's CPU hours and the rule of the attribution."""
import json
import sys

ans_path, case, source, by, users, ua, ub = sys.argv[1:8]

# key, jobs, idle core-h, unused GiB-h, idle GPU-h, timeouts, ooms, worst,
# cost of idle CPU, of unused memory, total
H = 1 / 3600
# 5001: 8 CPUs x 4200 s - 4200 s, 11 GiB x 4200 s; 5002: 2 x 6600 - 3600, 3 GiB x 6600 s
A = (ua, 2, 39000 * H, (11 * 4200 + 3 * 6600) * H, 0, 1, 0, "5001", 39000 * H * 0.05,
     (11 * 4200 + 3 * 6600) * H * 0.01)
B = (ub, 1, 3.5, 0, 0.5, 0, 1, "5003", 0.175, 0)
ROWS = {
    "user": [A, B],
    "user1": [A],
    "none": [],
    "account": [("acc1", 2, 29400 * H + 3.5, 11 * 4200 * H, 0.5, 0, 1, "5001",
                 (29400 * H + 3.5) * 0.05, 11 * 4200 * H * 0.01),
                ("acc2", 1, 9600 * H, 3 * 6600 * H, 0, 1, 0, "5002", 9600 * H * 0.05,
                 3 * 6600 * H * 0.01)],
    "accountB": [("acc1", 1, 3.5, 0, 0.5, 0, 1, "5003", 0.175, 0)],
    # n1: 5001's node (4 x 4200 - 2400, 5 GiB) and 5002; n2: 5001's (4 x 4200 - 1800,
    # 6 GiB) and 5003
    "host": [("n2", 2, 15000 * H + 3.5, 6 * 4200 * H, 0.5, 0, 1, "5001",
              (15000 * H + 3.5) * 0.05, 6 * 4200 * H * 0.01),
             ("n1", 2, (14400 + 9600) * H, (5 * 4200 + 3 * 6600) * H, 0, 1, 0, "5001",
              (14400 + 9600) * H * 0.05, (5 * 4200 + 3 * 6600) * H * 0.01)],
    "hostB": [("n2", 1, 3.5, 0, 0.5, 0, 1, "5003", 0.175, 0)],
}
# By tool, each job's waste shared by its tools' CPU time: 5001 (29400
# idle core-s, 11 GiB x 4200 s) 31/42 to bwa, 11/42 to samtools; 5002 (no
# tool) all to "-"; 5003 (3.5 h, 0.5 GPU-h, tools without CPU time)
# half to bwa, half to gzip.  The last element: the tool's CPU hours.
BWA_A = (29400 * 31 / 42, 46200 * 31 / 42)
SAM = (29400 * 11 / 42, 46200 * 11 / 42)
TOOL_B = [("bwa", 1, 1.75, 0, 0.25, 0, 1, "5003", 0.0875, 0, 0),
          ("gzip", 1, 1.75, 0, 0.25, 0, 1, "5003", 0.0875, 0, 0)]
ROWS["tool"] = [
    ("bwa", 2, (BWA_A[0] + 6300) * H, BWA_A[1] * H, 0.25, 0, 1, "5001",
     (BWA_A[0] + 6300) * H * 0.05, BWA_A[1] * H * 0.01, 3100 * H),
    ("-", 1, 9600 * H, 19800 * H, 0, 1, 0, "5002", 9600 * H * 0.05, 19800 * H * 0.01, 0),
    ("samtools", 1, SAM[0] * H, SAM[1] * H, 0, 0, 0, "5001", SAM[0] * H * 0.05,
     SAM[1] * H * 0.01, 1100 * H),
    ("gzip", 1, 1.75, 0, 0.25, 0, 1, "5003", 0.0875, 0, 0),
]
ROWS["toolA"] = [
    ("bwa", 1, BWA_A[0] * H, BWA_A[1] * H, 0, 0, 0, "5001", BWA_A[0] * H * 0.05,
     BWA_A[1] * H * 0.01, 3100 * H),
    ROWS["tool"][1], ROWS["tool"][2],
]
ROWS["toolB"] = TOOL_B
want = ROWS[case]
if users == "A":
    want = [r for r in want if r[0] != ub] if case == "user" else want
elif users == "B":
    want = [r for r in want if r[0] != ua] if case == "user" else want

ans = json.load(open(ans_path))
errors = []
if ans.get("source") != source:
    errors.append(f"source {ans.get('source')}, want {source}")
if ans.get("by") != by:
    errors.append(f"by {ans.get('by')}, want {by}")
if ans.get("all_users") != (users == "all"):
    errors.append(f"all_users {ans.get('all_users')}, want {users == 'all'}")
if ans.get("prices") != {"cpu_hour": 0.05, "gb_hour": 0.01}:
    errors.append(f"prices {ans.get('prices')}")
rows = ans.get("rows", [])
if [r["key"] for r in rows] != [w[0] for w in want]:
    errors.append(f"keys {[r['key'] for r in rows]}, want {[w[0] for w in want]}")
if (by == "tool") != ("shared among the tools" in ans.get("attribution", "")):
    errors.append(f"attribution {ans.get('attribution')!r} by {by}")
for r, w in zip(rows, want):
    key, jobs, core_h, gib_h, gpu_h, to, oom, worst, c_cpu, c_mem = w[:10]
    if len(w) > 10 and abs(r.get("cpu_hours", -1) - w[10]) > 1e-4:
        errors.append(f"{key}: cpu_hours {r.get('cpu_hours')}, want {w[10]:.6f}")
    if len(w) == 10 and "cpu_hours" in r:
        errors.append(f"{key}: cpu_hours by {by}")
    got = (r["jobs"], r["timeouts"], r["ooms"], r["worst_job"])
    if got != (jobs, to, oom, worst):
        errors.append(f"{key}: jobs, timeouts, ooms, worst {got}, want {(jobs, to, oom, worst)}")
    for name, v, e in (("idle_core_hours", r["idle_core_hours"], core_h),
                       ("unused_mem_gib_hours", r["unused_mem_gib_hours"], gib_h),
                       ("idle_gpu_hours", r["idle_gpu_hours"], gpu_h),
                       ("cost.idle_cpu", r["cost"]["idle_cpu"], c_cpu),
                       ("cost.unused_memory", r["cost"]["unused_memory"], c_mem),
                       ("cost.total", r["cost"]["total"], c_cpu + c_mem)):
        if abs(v - e) > 1e-4:
            errors.append(f"{key}: {name} {v}, want {e:.6f}")
if errors:
    print("\n".join(errors))
    print(json.dumps(ans, indent=1)[:3000])
    sys.exit(1)
