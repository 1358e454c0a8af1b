#!/usr/bin/env python3
"""slurmtask.py SOCKET JOBFILE USER -- CMD... - a Slurm step as the SPANK
plugin registers it: root (slurmstepd's place) registers the step of USER
with scheduler slurm, then runs CMD as USER (its child, so the job's),
ends the job with CMD's exit status and exits with it.  The job's uid is
written to JOBFILE once registered."""
import json
import os
import pwd
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402


def request(path, obj):
    out = tracerd_req.exchange(path, json.dumps(obj).encode() + b"\n", timeout=30)
    return json.loads(out.decode() or "{}")


def main():
    sock, jobfile, user = sys.argv[1:4]
    if sys.argv[4] != "--":
        sys.exit(__doc__)
    cmd = sys.argv[5:]
    pw = pwd.getpwnam(user)
    r = request(sock, {"op": "register", "v": 1, "identity": {
        "scheduler": "slurm", "job_id": str(os.getpid()), "step_id": "0",
        "uid": pw.pw_uid, "user": user, "task_name": "slurmtask"}})
    if not r.get("ok"):
        sys.exit(f"register: {r}")
    with open(jobfile, "w") as f:
        f.write(r["job"])
    rc = subprocess.call(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
                          "--clear-groups", *cmd])
    request(sock, {"op": "end", "v": 1, "job": r["job"], "status": max(rc, 0)})
    sys.exit(rc)


if __name__ == "__main__":
    main()
