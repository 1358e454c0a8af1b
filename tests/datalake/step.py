#!/usr/bin/env python3
"""step.py SOCKET CLUSTER JOBID STEPID -- CMD... - one step of a Slurm job
as the SPANK plugin registers it (root, slurmstepd's place): register the
step with its cluster, job and step id, run CMD as its child, end the job
with CMD's exit status and exit with it.  STEP_CPUS, STEP_MEM_BYTES and
STEP_NODES, when set, are the step's allocation, STEP_JOB_START_NS the
scheduler's start of the job (as slurmjob.c would find them)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402


def request(path, obj):
    out = tracerd_req.exchange(path, json.dumps(obj).encode() + b"\n", timeout=30)
    return json.loads(out.decode() or "{}")


def allocation():
    a = {k: int(os.environ[e]) for k, e in (("cpus", "STEP_CPUS"), ("mem_bytes", "STEP_MEM_BYTES"),
                                            ("nodes", "STEP_NODES")) if os.environ.get(e)}
    out = {"allocation": a} if a else {}
    if os.environ.get("STEP_JOB_START_NS"):
        out["job_start_ns"] = int(os.environ["STEP_JOB_START_NS"])
    return out


def main():
    sock, cluster, job_id, step_id = sys.argv[1:5]
    if sys.argv[5] != "--":
        sys.exit(__doc__)
    r = request(sock, {"op": "register", "v": 1, "identity": {
        "scheduler": "slurm", "cluster": cluster, "job_id": job_id, "step_id": step_id,
        "uid": 0, "user": "root", "pipeline": "dlsteps", "task_name": f"step{step_id}",
        **allocation()}})
    if not r.get("ok"):
        sys.exit(f"register: {r}")
    rc = subprocess.call(sys.argv[6:])
    request(sock, {"op": "end", "v": 1, "job": r["job"], "status": max(rc, 0)})
    sys.exit(rc)


if __name__ == "__main__":
    main()
