#!/usr/bin/env python3
"""spool_fill.py NDJSON SPOOL_DIR N PIPELINE - a spool of N summaries for
the replay benchmark: copies of the last summary of NDJSON, each with its
own summary_id and the pipeline PIPELINE, written as tracerd's spool
records (daemon/spool.c: header with length and CRC-32, then the JSON)."""
import json, os, sys, uuid, zlib

src, spool, n, pipeline = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
base = json.loads([l for l in open(src) if l.strip()][-1])
os.makedirs(spool, mode=0o700, exist_ok=True)
for i in range(1, n + 1):
    base["summary_id"] = str(uuid.uuid4())
    base["identity"]["pipeline"] = pipeline
    body = json.dumps(base, separators=(",", ":")).encode()
    with open(os.path.join(spool, f"{i:016x}.rec"), "wb") as f:
        f.write(b"tracer-spool 1 %d %08x\n" % (len(body), zlib.crc32(body)) + body)
