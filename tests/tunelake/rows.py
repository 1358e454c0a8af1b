#!/usr/bin/env python3
"""rows.py UA UIDA UB UIDB - tracer.jobs rows (JSONEachRow) of a pipeline
"PL" for `tracer tune` on the datalake, each with its columns and a
summary saying the same (so that the projection read by root and the
summaries read through tracerd can be compared):

  UA  step "sort": 4 runs, peak = 100 MiB + 1 x input (20, 50, 80, 110 MiB read)
  UA  step "call": 3 runs, one OOM-killed at a 1 GiB allocation, one TIMEOUT
  UA  step "bwa":  one Slurm job of 2 nodes (3 summaries: batch on n1,
                   step 0 on n1 and n2): one run; its summary on n1 sent
                   twice (the same summary_id)
  UB  step "sort": 3 runs of 3 GiB (another user, the same step name)
  UA  step "old":  one run 40 days ago (outside --since 30d)
  UA  step "par":  2 runs whose sampled concurrency p95 (6) is above their
                   mean CPU use (1): tune asks for 6 CPUs, from the
                   datalake's conc_p95 as from the summaries
  UA  step "fg":   2 runs, one on AWS Fargate (label ecs.launch_type): its
                   AWS Batch request is a Fargate size
"""
import json
import sys
import time
import uuid

MiB = 1 << 20
NS = 10**9
UA, UIDA, UB, UIDB = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
now = int(time.time())
n = 0


def row(user, uid, task, peak_mib, input_mib, wall, cpu_s, state="COMPLETED", job_id="",
        step_id="", host="h1", alloc_mem=4096 * MiB, limit=3600, age_s=3600, sid=None,
        job=None, node_count=1, conc=None, labels=None):
    global n
    n += 1
    end = now - age_s
    start = end - wall
    sid = sid or str(uuid.UUID(int=n))
    job = job or "h1-%d" % n
    sched = "slurm" if job_id else "local"
    conc = conc or max(1, -(-int(cpu_s) // int(wall)))
    ident = {"task_name": task, "pipeline": "PL", "user": user, "uid": uid,
             "scheduler": sched, "allocation": {"cpus": 4, "mem_bytes": alloc_mem,
                                                "time_limit_s": limit}}
    if labels:
        ident["labels"] = labels
    if job_id:
        ident.update(cluster="c1", job_id=job_id, step_id=step_id, node_name=host,
                     node_count=node_count)
    summary = {"schema": "tracer.job/2", "job": job, "summary_id": sid, "identity": ident,
               "host": {"hostname": host, "cpus": 8}, "state": state,
               "start_ns": str(start * NS), "end_ns": str(end * NS), "wall_s": wall,
               "memory": {"peak_bytes": peak_mib * MiB, "allocated_bytes": alloc_mem},
               "totals": {"cpu_s": cpu_s, "rchar": input_mib * MiB},
               "allocation_use": {"concurrency": {"p50": conc, "p95": conc, "max": conc}}}
    r = {"summary_id": sid, "job": job, "host": host, "scheduler": sched,
         "cluster": "c1" if job_id else "", "user": user, "uid": uid, "job_id": job_id,
         "step_id": step_id, "pipeline": "PL", "task_name": task,
         "start": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(start)),
         "end": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(end)),
         "start_ns": start * NS, "end_ns": end * NS, "wall_s": wall, "cpu_s": cpu_s,
         "alloc_cpus": 4, "alloc_mem_bytes": alloc_mem, "mem_peak_bytes": peak_mib * MiB,
         "rchar": input_mib * MiB, "state": state, "time_limit_s": limit, "conc_p95": conc,
         "labels": json.dumps(labels or {}, separators=(",", ":")),  # as the sink writes it
         "summary": json.dumps(summary, separators=(",", ":"))}
    print(json.dumps(r))
    return r


for i, inp in enumerate((20, 50, 80, 110)):
    row(UA, UIDA, "sort", 100 + inp, inp, 600, 600, age_s=3600 * (i + 1))
row(UA, UIDA, "call", 500, 1, 300, 300, age_s=7200)
row(UA, UIDA, "call", 1024, 1, 100, 100, state="OUT_OF_MEMORY", alloc_mem=1024 * MiB, age_s=7300)
row(UA, UIDA, "call", 400, 1, 1000, 1000, state="TIMEOUT", limit=1000, age_s=7400)
b = row(UA, UIDA, "bwa", 700, 10, 1200, 4800, job_id="77", step_id="batch", host="n1", node_count=2)
print(json.dumps(b))  # the same batch delivered twice
row(UA, UIDA, "bwa", 900, 10, 1100, 4400, job_id="77", step_id="0", host="n1", node_count=2)
row(UA, UIDA, "bwa", 800, 10, 1100, 4400, job_id="77", step_id="0", host="n2", node_count=2)
for i in range(3):
    row(UB, UIDB, "sort", 3072, 60, 600, 600, age_s=1800 * (i + 1))
row(UA, UIDA, "old", 100, 1, 60, 60, age_s=40 * 86400)
for i in range(2):
    row(UA, UIDA, "par", 300, 1, 600, 600, age_s=5000 + 100 * i, conc=6)
# an AWS Batch job on Fargate and one on EC2 of the same step: the
# request fits a Fargate size (1 CPU, 300 MiB x 1.2 -> 1 vCPU, 2048 MiB)
row(UA, UIDA, "fg", 300, 1, 600, 300, age_s=6000, labels={"ecs.launch_type": "FARGATE"})
row(UA, UIDA, "fg", 250, 1, 600, 300, age_s=6100, labels={"ecs.launch_type": "EC2"})
