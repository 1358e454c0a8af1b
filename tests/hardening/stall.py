#!/usr/bin/env python3
"""stall.py SOCKET GO DONE N - tracerd keeps answering while a user's job
floods it with exec records: creates the file GO (the flooding job waits
for it), then registers N Slurm steps as slurmstepd would (root, each then
ended) and asks for tracerd's status in a loop until the file DONE exists
(the job writes it after its last exec) and the registrations are done.
Every request has a 2 s deadline; one that fails or passes it is a
failure.  Prints the counts and the worst latencies; exits 1 on any
failure."""
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402

DEADLINE_S = 2.0
FLOOD_MAX_S = 600  # the flood not over by then: a failure


def request(path, obj):
    t0 = time.monotonic()
    out = tracerd_req.exchange(path, json.dumps(obj).encode() + b"\n", timeout=DEADLINE_S)
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


def main():
    path, go, done, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    out = {"registered": 0, "reg_failed": 0, "reg_max": 0.0,
           "status": 0, "status_failed": 0, "status_max": 0.0, "errors": []}
    open(go, "w").close()
    t = threading.Thread(target=registrations, args=(path, n, out))
    t.start()
    # status until the flood is over (a job that never ends is the
    # caller's timeout) and the registrations are done
    start = time.monotonic()
    while t.is_alive() or not os.path.exists(done) or out["status"] < 1:
        if time.monotonic() - start > FLOOD_MAX_S:
            out["status_failed"] += 1
            out["errors"].append("the flooding job did not end in %d s" % FLOOD_MAX_S)
            break
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
    print("registered=%d reg_failed=%d reg_max_ms=%.0f status=%d status_failed=%d "
          "status_max_ms=%.0f" % (out["registered"], out["reg_failed"],
                                  out["reg_max"] * 1000, out["status"],
                                  out["status_failed"], out["status_max"] * 1000))
    for e in out["errors"][:5]:
        print("  " + e)
    sys.exit(0 if out["reg_failed"] == 0 and out["status_failed"] == 0
             and out["registered"] == n else 1)


if __name__ == "__main__":
    main()
