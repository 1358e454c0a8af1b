"""summaries.py - job summaries for the suites' Python checks: the summary
of one job from tracerd's file sink (NDJSON, strict: every line valid
UTF-8 and JSON), waited for with a deadline since it reaches the file
through tracerd's spool a moment after the job ends; and lookups the
checks share.  Each failure exits with the reason (sys.exit(str)).
"""
import json
import os
import sys
import time

WAIT_S = 20


def find(path, uid):
    """The last summary of job uid in path, or None."""
    found = None
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        for raw in f:
            s = json.loads(raw.decode("utf-8"))
            if s.get("job") == uid:
                found = s
    return found


def job_uid(ref):
    """A job uid, or @FILE: the uid written in FILE (tracer run --job-file)."""
    uid = ref
    if ref.startswith("@"):
        with open(ref[1:]) as f:
            uid = f.read().strip()
    if not uid:
        sys.exit(f"{ref} names no job (tracer run did not register?)")
    return uid


def load(path, ref):
    """The summary of job ref (see job_uid), polled for WAIT_S seconds."""
    uid = job_uid(ref)
    deadline = time.monotonic() + WAIT_S
    found = find(path, uid)
    while found is None and time.monotonic() < deadline:
        time.sleep(0.02)
        found = find(path, uid)
    if found is None:
        sys.exit(f"no summary for job {uid!r} in {path}")
    return found


def tool(s, name):
    """The tools[] entry named name (exits when there is none)."""
    for t in s["tools"]:
        if t["tool"] == name:
            return t
    sys.exit(f"tool {name!r} not in summary; tools: {[t['tool'] for t in s['tools']]}")


def within(what, got, want, rel):
    """got is want within the relative tolerance rel (exits otherwise)."""
    if want == 0 or abs(got - want) / want > rel:
        sys.exit(f"{what}: got {got}, want {want} (tolerance {rel:.0%})")
    print(f"{what}: got {got}, want {want}, error {abs(got - want) / want:.3%}")
