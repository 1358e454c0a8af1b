#!/usr/bin/env python3
"""jobs.py BASE_NDJSON SPOOL_DIR UID_A USER_A UID_B USER_B - the sweep
suite's known jobs as tracerd's spool records (daemon/spool.c, version 1
header), so that tracerd delivers them to its file and ClickHouse sinks
as it would its own: each a copy of BASE's last summary (a real one)
with the identity, allocation, times, CPU, peak and state of one step.

The jobs (cluster c1, Slurm), their waste worked out in tests/sweep/run.sh:
  5001 A acc1 p1  nodes n1 (batch + step 0) and n2 (step 0), 4 CPUs and
                  8 GiB per node, steps over 1 h, the scheduler's start
                  10 min before: 70 min elapsed; CPU 600 + 1800 on n1,
                  1800 on n2; peaks 1 GiB and 3 GiB on n1, 2 GiB on n2
  5002 A acc2 p1  n1, 2 CPUs, 4 GiB, 110 min, CPU 3600, peak 1 GiB; TIMEOUT
  5003 B acc1 p2  n2, 8 CPUs, 16 GiB, 30 min, CPU 1800, peak 16 GiB,
                  2 GPUs of which 1 unused; OUT_OF_MEMORY
  5004 B acc1 p2  n1, 16 CPUs, 40 days ago: outside a 30 d window
Each summary carries its node_increments (lib/jobinc.c: what it adds to
its job's totals on its node, worked out here in the steps' order as
tracerd does; 5003 and 5004, 1-node batch steps alone, are "single"),
but 5002's, which has none, as an older tracerd's: the datalake then
holds rows of both kinds, and the same numbers come out.
Their tools (name, CPU seconds; --by tool shares a job's waste by them):
  5001 n1 batch: bwa 400 (two paths, 300 + 100: one tool), samtools 200;
       n1 step 0: bwa 1800; n2 step 0: bwa 900, samtools 900
       (the job: bwa 3100, samtools 1100)
  5002 none recorded (its waste counts under "-")
  5003 bwa 0, gzip 0 (no CPU time: shared equally)
"""
import json, os, sys, time, uuid, zlib

base_path, spool, uid_a, user_a, uid_b, user_b = sys.argv[1:7]
base = json.loads([l for l in open(base_path) if l.strip()][-1])
GiB = 1 << 30
now = int(time.time())
T0 = now - 2 * 86400  # two days ago, whole seconds

# (job, step, host, user, uid, account, partition, start, wall, cpus,
#  mem GiB, cpu_s, peak GiB, state, gpus (allocated, unused), job start)
A = (user_a, int(uid_a))
B = (user_b, int(uid_b))
steps = [
    ("5001", "batch", "n1", *A, "acc1", "p1", T0, 3600, 4, 8, 600, 1, "COMPLETED", None, T0 - 600),
    ("5001", "0", "n1", *A, "acc1", "p1", T0 + 60, 3540, 4, 8, 1800, 3, "COMPLETED", None, T0 - 600),
    ("5001", "0", "n2", *A, "acc1", "p1", T0 + 60, 3540, 4, 8, 1800, 2, "COMPLETED", None, T0 - 600),
    ("5002", "batch", "n1", *A, "acc2", "p1", T0 + 600, 6600, 2, 4, 3600, 1, "TIMEOUT", None, 0),
    ("5003", "batch", "n2", *B, "acc1", "p2", T0, 1800, 8, 16, 1800, 16, "OUT_OF_MEMORY", (2, 1), 0),
    ("5004", "batch", "n1", *B, "acc1", "p2", now - 40 * 86400, 3600, 16, 8, 10, 1, "COMPLETED", None, 0),
]
# per step: (tool, path, CPU seconds)
TOOLS = [
    [("bwa", "/opt/bwa/bin/bwa", 300), ("bwa", "/usr/bin/bwa", 100),
     ("samtools", "/usr/bin/samtools", 200)],
    [("bwa", "/usr/bin/bwa", 1800)],
    [("bwa", "/usr/bin/bwa", 900), ("samtools", "/usr/bin/samtools", 900)],
    [],
    [("bwa", "/usr/bin/bwa", 0), ("gzip", "/usr/bin/gzip", 0)],
    [("bwa", "/usr/bin/bwa", 10)],
]


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))


# the node totals so far per (job, host), as lib/jobinc.c keeps them
memo = {}
NO_INCREMENTS = {"5002"}
SINGLE = {"5003", "5004"}


def folded(t):
    return (t["cpus"], t["cpu"] if t["cpus"] > 0 else 0,
            max(t["mem"] - t["peak"], 0), t["gpus"])


def increments(job, host, cpus, mem, cpu, peak, gpus):
    t = memo.setdefault((job, host), {"cpus": 0, "cpu": 0, "mem": 0, "peak": 0, "gpus": 0})
    before = folded(t)
    t["cpus"], t["mem"] = max(t["cpus"], cpus), max(t["mem"], mem * GiB)
    t["peak"], t["cpu"] = max(t["peak"], peak * GiB), t["cpu"] + cpu
    t["gpus"] = max(t["gpus"], gpus[0] - gpus[1] if gpus else 0)
    after = folded(t)
    return {"alloc_cpus": after[0] - before[0], "cpu_s": float(after[1] - before[1]),
            "unused_mem_bytes": after[2] - before[2], "gpus_idle": after[3] - before[3],
            "single": job in SINGLE}


os.makedirs(spool, mode=0o700, exist_ok=True)
for i, (job, step, host, user, uid, acct, part, start, wall, cpus, mem, cpu, peak, state, gpus,
        jstart) in enumerate(steps, 1):
    s = json.loads(json.dumps(base))
    sid = str(uuid.uuid4())
    s["summary_id"] = sid
    s["job"] = f"sweep-{job}-{step}-{host}"
    ident = s["identity"]
    for k in ("job_start_ns", "submit_ns", "queue_wait_s", "array_job_id", "array_index"):
        ident.pop(k, None)
    ident.update(scheduler="slurm", cluster="c1", job_id=job, step_id=step, user=user, uid=uid,
                 account=acct, queue=part, pipeline="sweep-pipe", task_name=f"sweep-{job}",
                 node_name=host)
    if jstart:
        ident["job_start_ns"] = jstart * 10**9
    ident["allocation"] = {"cpus": cpus, "mem_bytes": mem * GiB}
    s["host"]["hostname"] = host
    s["start"], s["end"] = iso(start), iso(start + wall)
    s["start_ns"], s["end_ns"] = str(start * 10**9), str((start + wall) * 10**9)
    s["wall_s"] = float(wall)
    s["totals"]["cpu_s"] = float(cpu)
    s["memory"]["peak_bytes"] = peak * GiB
    s["memory"]["allocated_bytes"] = mem * GiB
    s["state"] = state
    s["oom_kills"] = 1 if state == "OUT_OF_MEMORY" else 0
    s.pop("gpu", None)
    tmpl = (base.get("tools") or [{}])[0]
    tools = []
    for name, path, tcpu in TOOLS[i - 1]:
        t = json.loads(json.dumps(tmpl))
        t.pop("gpu", None)
        t.update(tool=name, path=path, cpu_s=float(tcpu), user_s=float(tcpu), sys_s=0.0)
        tools.append(t)
    s["tools"] = tools
    if gpus:
        s["gpu"] = {"devices": [{"index": d, "allocated": True, "used": d >= gpus[1]}
                                for d in range(gpus[0])]}
    s.pop("node_increments", None)
    if job not in NO_INCREMENTS:
        s["node_increments"] = increments(job, host, cpus, mem, cpu, peak, gpus)
    body = json.dumps(s, separators=(",", ":")).encode()
    with open(os.path.join(spool, f"{i:016x}.rec"), "wb") as f:
        f.write(b"tracer-spool 1 %d %08x\n" % (len(body), zlib.crc32(body)) + body)
print(len(steps))
