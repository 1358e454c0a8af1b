#!/usr/bin/env python3
"""probe.py SOCKET OUT STOPFILE - ask tracerd for its status again and
again (one request at a time, 10 ms apart) until STOPFILE exists, then
write to OUT: the number of requests, the slowest round trip in ms, the
median, and how many got no reply within 5 s.  OUT.ready is created
after the first reply (a test starts its load then)."""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402

sock_path, out, stop = sys.argv[1:4]
times, failed = [], 0
while not os.path.exists(stop):
    t0 = time.monotonic()
    try:
        tracerd_req.ask(sock_path, {"op": "status"}, timeout=5)["ok"]
        times.append((time.monotonic() - t0) * 1000)
        if len(times) == 1:
            open(out + ".ready", "w").close()
    except Exception:
        failed += 1
    time.sleep(0.01)
times.sort()
with open(out, "w") as f:
    json.dump({"n": len(times), "max_ms": times[-1] if times else None,
               "median_ms": times[len(times) // 2] if times else None,
               "failed": failed}, f)
