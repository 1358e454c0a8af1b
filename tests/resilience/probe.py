#!/usr/bin/env python3
"""probe.py SOCKET OUT STOPFILE - ask tracerd for its status again and
again (one request at a time, 10 ms apart) until STOPFILE exists, then
write to OUT: the number of requests, the slowest round trip in ms, the
median, and how many got no reply within 5 s.  OUT.ready is created
after the first reply (a test starts its load then)."""
import json, os, socket, sys, time

sock_path, out, stop = sys.argv[1:4]
times, failed = [], 0
while not os.path.exists(stop):
    t0 = time.monotonic()
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(sock_path)
        s.sendall(b'{"op":"status"}\n')
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        s.close()
        json.loads(buf)["ok"]
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
