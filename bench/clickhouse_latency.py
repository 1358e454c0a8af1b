#!/usr/bin/env python3
"""clickhouse_latency.py HTTP_PORT PIPELINE COUNT - job end to row in
ClickHouse: polls tracer.jobs every 20 ms over the HTTP interface and
notes when each summary of PIPELINE first shows; its latency is that
moment minus the job's end (end_ns).  Prints "median p99" in seconds once
COUNT rows were seen (exit 1 after 300 s without them)."""
import statistics, sys, time, urllib.parse, urllib.request

port, pipeline, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
q = f"SELECT summary_id, end_ns FROM tracer.jobs WHERE pipeline = '{pipeline}' FORMAT TabSeparated"
url = f"http://127.0.0.1:{port}/?query=" + urllib.parse.quote(q)
seen = {}
deadline = time.time() + 300
while len(seen) < count and time.time() < deadline:
    now = time.time()
    try:
        rows = urllib.request.urlopen(url, timeout=5).read().decode().splitlines()
    except OSError:
        rows = []
    for r in rows:
        sid, end_ns = r.split("\t")
        seen.setdefault(sid, now - int(end_ns) / 1e9)
    time.sleep(0.02)
if len(seen) < count:
    sys.exit(f"only {len(seen)} of {count} rows in 300 s")
lat = sorted(seen.values())
p99 = lat[min(len(lat) - 1, int(round(0.99 * len(lat))) - 1)]
print(f"{statistics.median(lat):.3f} {p99:.3f}")
