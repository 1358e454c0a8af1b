#!/usr/bin/env python3
"""stall.py SOCKET GO STARTED STOP N - tracerd keeps answering while a
user's job floods it with exec records: creates the file GO (the flooding
job waits for it), waits for STARTED (the job writes it once its execs
have begun), then registers N Slurm steps as slurmstepd would (root, each
then ended) and asks for tracerd's status in a loop until the
registrations are done and MIN_STATUS replies came; then creates STOP
(the job execs until it exists).  Every reply came after the flood began
and before it was let end: a loop that waited on the flood would leave a
request unanswered by its own deadline (REPLY_DEADLINE_S, far beyond a
reply of a loop that does not wait).  Prints the counts and, as
information, the worst round trips; exits 1 on any failure."""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402

REPLY_DEADLINE_S = 30.0
START_DEADLINE_S = 60  # the flood not begun by then: a failure
MIN_STATUS = 20


def request(path, obj):
    t0 = time.monotonic()
    out = tracerd_req.exchange(path, json.dumps(obj).encode() + b"\n", timeout=REPLY_DEADLINE_S)
    return json.loads(out.decode()), time.monotonic() - t0


def registrations(path, n, out):
    for i in range(n):
        if out["reg_failed"] >= 5:
            break  # tracerd is not answering: no need to wait out the rest
        ident = {"scheduler": "slurm", "job_id": "stall%d" % os.getpid(),
                 "step_id": str(i)}
        try:
            r, dt = request(path, {"op": "register", "v": 1, "identity": ident})
            out["reg_max"] = max(out["reg_max"], dt)
            if not r.get("ok"):
                out["reg_failed"] += 1
                out["errors"].append("register %d: %s" % (i, r))
                continue
            out["registered"] += 1
            e, dt = request(path, {"op": "end", "v": 1, "job": r["job"], "status": 0})
            out["reg_max"] = max(out["reg_max"], dt)
            if not e.get("ok"):
                out["reg_failed"] += 1
                out["errors"].append("end %d: %s" % (i, e))
        except (OSError, ValueError) as ex:
            out["reg_failed"] += 1
            out["errors"].append("registration %d: %s" % (i, ex))


def wait_started(started, out):
    deadline = time.monotonic() + START_DEADLINE_S
    while not os.path.exists(started):
        if time.monotonic() > deadline:
            out["errors"].append("the flooding job did not begin in %d s" % START_DEADLINE_S)
            return False
        time.sleep(0.02)
    return True


def probe(path, n, out):
    t = threading.Thread(target=registrations, args=(path, n, out))
    t.start()
    while t.is_alive() or out["status"] < MIN_STATUS:
        if out["status_failed"] >= 3:
            break  # tracerd is not answering
        try:
            r, dt = request(path, {"op": "status", "v": 1})
            out["status_max"] = max(out["status_max"], dt)
            if not r.get("ok", True) and "error" in r:
                raise ValueError(r["error"])
            out["status"] += 1
            time.sleep(0.01)  # pacing only: the machine is shared
        except (OSError, ValueError) as ex:
            out["status_failed"] += 1
            out["errors"].append("status: %s" % ex)
    t.join()


def main():
    path, go, started, stop, n = sys.argv[1:5] + [int(sys.argv[5])]
    out = {"registered": 0, "reg_failed": 0, "reg_max": 0.0,
           "status": 0, "status_failed": 0, "status_max": 0.0, "errors": []}
    open(go, "w").close()
    begun = wait_started(started, out)
    try:
        if begun:
            probe(path, n, out)
    finally:
        open(stop, "w").close()  # the flood may end now, not before
    print("registered=%d reg_failed=%d status=%d status_failed=%d "
          "(information: reg_max_ms=%.0f status_max_ms=%.0f)"
          % (out["registered"], out["reg_failed"], out["status"], out["status_failed"],
             out["reg_max"] * 1000, out["status_max"] * 1000))
    for e in out["errors"][:5]:
        print("  " + e)
    sys.exit(0 if begun and out["reg_failed"] == 0 and out["status_failed"] == 0
             and out["registered"] == n and out["status"] >= MIN_STATUS else 1)


if __name__ == "__main__":
    main()
