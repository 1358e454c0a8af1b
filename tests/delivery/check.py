#!/usr/bin/env python3
"""check.py CHECK ARGS... - the delivery suite's checks of what reached a
sink against the summaries tracerd wrote to its file sink.  Exit 0 when
the check holds; otherwise say why on stdout and exit 1."""
import json, subprocess, sys

def summaries(path, pipeline=None):
    out = []
    for line in open(path):
        if line.strip():
            s = json.loads(line)
            if pipeline is None or s.get("identity", {}).get("pipeline") == pipeline:
                out.append(s)
    return out

def ch(port, query):
    r = subprocess.run(["clickhouse-client", "--port", port, "-q", query],
                       capture_output=True, text=True, check=True)
    return [l.split("\t") for l in r.stdout.splitlines() if l]

def fail(msg):
    print(msg)
    sys.exit(1)

def ch_rows(ndjson, port, pipeline, expect):
    """jobs FINAL has one row per summary, no more; tools and processes
    rows match each summary's tools and process_tree."""
    sums = {s["summary_id"]: s for s in summaries(ndjson, pipeline)}
    if len(sums) != int(expect):
        fail(f"{len(sums)} summaries of pipeline {pipeline} in the file sink, expected {expect}")
    q = f"WHERE pipeline = '{pipeline}'"
    jobs = ch(port, f"SELECT summary_id, job, round(cpu_s, 6), processes FROM tracer.jobs FINAL {q}")
    ids = [r[0] for r in jobs]
    if len(ids) != len(set(ids)):
        fail(f"duplicate summary_id in jobs FINAL ({len(ids)} rows, {len(set(ids))} ids)")
    if set(ids) != set(sums):
        fail(f"jobs FINAL: {len(set(ids) - set(sums))} unknown ids, {len(set(sums) - set(ids))} missing")
    for sid, job, cpu, procs in jobs:
        s = sums[sid]
        if job != s["job"] or abs(float(cpu) - s["totals"]["cpu_s"]) > 1e-5 or \
           int(procs) != s["processes"]["total"]:
            fail(f"job row {sid} differs from its summary: {job} {cpu} {procs}")
    for table, field, key in (("tools", "tools", "tool"), ("processes", "process_tree", "pid")):
        rows = ch(port, f"SELECT summary_id, toString({key}), round(cpu_s, 6) FROM tracer.{table} FINAL {q}")
        got = sorted((r[0], r[1], round(float(r[2]), 6)) for r in rows)
        want = sorted((sid, str(e[key]), round(e["cpu_s"], 6))
                      for sid, s in sums.items() for e in s[field])
        if got != want:
            fail(f"{table}: {len(got)} rows, {len(want)} expected from the summaries; "
                 f"first difference: {next((a, b) for a, b in zip(got + [None] * len(want), want + [None] * len(got)) if a != b)}")
    # flags: one row per element of a summary's "flags", none without
    rows = ch(port, f"SELECT summary_id, flag, severity FROM tracer.flags FINAL {q}")
    got = sorted(tuple(r) for r in rows)
    want = sorted((sid, f.get("id", ""), f.get("severity", ""))
                  for sid, s in sums.items() for f in s.get("flags", []))
    if got != want:
        fail(f"flags: {len(got)} rows, {len(want)} expected from the summaries")
    print(f"{len(sums)} jobs, tools, processes and {len(want)} flags consistent")

def http_log(log, ndjson, token, first_status):
    """every summary of the file sink in exactly one accepted (200) batch;
    retried batches identical; the bearer token on every request"""
    reqs = [json.loads(l) for l in open(log) if l.strip()]
    if not reqs:
        fail("no request reached the server")
    if reqs[0]["status"] != int(first_status):
        fail(f"first request answered {reqs[0]['status']}, expected {first_status}")
    for r in reqs:
        h = {k.lower(): v for k, v in r["headers"].items()}
        if h.get("authorization") != f"Bearer {token}":
            fail(f"request without the bearer token: {h.get('authorization')}")
        if h.get("content-encoding") != "gzip":
            fail("request body not gzip-compressed")
    accepted = [s["summary_id"] for r in reqs if r["status"] == 200 for s in r["summaries"]]
    if len(accepted) != len(set(accepted)):
        fail(f"a summary accepted twice ({len(accepted)} accepted, {len(set(accepted))} distinct)")
    want = {s["summary_id"] for s in summaries(ndjson)}
    if set(accepted) != want:
        fail(f"accepted {len(set(accepted))} summaries, the file sink has {len(want)}")
    failed = {s["summary_id"] for r in reqs if r["status"] != 200 for s in r["summaries"]}
    if not failed <= set(accepted):
        fail("a summary whose batch failed was never accepted")
    print(f"{len(reqs)} requests, {len(accepted)} summaries accepted once each")

def ids(path):
    """summary ids of a file sink or an HTTP collector's log, one a line"""
    for l in open(path):
        if not l.strip():
            continue
        o = json.loads(l)
        for s in o.get("summaries", [o]):
            print(s["summary_id"])

{"ch-rows": ch_rows, "http-log": http_log, "ids": ids}[sys.argv[1]](*sys.argv[2:])
