#!/usr/bin/env python3
"""probe.py SOCKET OUT STOPFILE [--min N] [--during EXPR] [--times FILE] - ask tracerd
for its status again and again (one request at a time, 10 ms apart)
until STOPFILE exists and N replies came (default 1; a request that went
unanswered ends it too), then write to OUT as JSON: n (replies), failed
(requests without a reply within REPLY_DEADLINE_S), during (replies for
which EXPR held: a Python expression over the reply's status object s,
e.g. 's["jobs"]["closing"] >= 1'), and the round trips in ms (max,
median): numbers to show, not to assert (make bench measures them).
--times FILE: each reply's "SENT RECEIVED" on a line, CLOCK_MONOTONIC
seconds (comparable with another process's time.monotonic()): a reply
with both inside an interval was made inside it.
OUT.ready is created after the first reply (a test starts its load
then); OUT.n holds the replies so far (a test waits for a count)."""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tracerd_req  # noqa: E402

# far beyond any reply of a loop that is not waiting on something, far
# below how long a test holds what the loop must not wait for (a sink
# hung for its whole http_timeout_ms of 120 s, workers held until let go)
REPLY_DEADLINE_S = 30

args = sys.argv[1:]
sock_path, out, stop = args[:3]
opts = dict(zip(args[3::2], args[4::2]))
want = int(opts.get("--min", 1))
during = compile(opts["--during"], "--during", "eval") if "--during" in opts else None
times_file = open(opts["--times"], "a", buffering=1) if "--times" in opts else None
times, failed, n_during, errors = [], 0, 0, []


def note_count():
    with open(out + ".n.tmp", "w") as f:
        f.write("%d\n" % len(times))
    os.replace(out + ".n.tmp", out + ".n")


while not (os.path.exists(stop) and (len(times) >= want or failed)):
    t0 = time.monotonic()
    try:
        r = tracerd_req.ask(sock_path, {"op": "status", "v": 1}, timeout=REPLY_DEADLINE_S)
        if not r.get("ok"):
            raise ValueError("status refused: %s" % r)
        t1 = time.monotonic()
        times.append((t1 - t0) * 1000)
        if times_file:
            times_file.write("%.6f %.6f\n" % (t0, t1))
        if during is not None and eval(during, {}, {"s": r["status"]}):
            n_during += 1
        note_count()
        if len(times) == 1:
            open(out + ".ready", "w").close()
    except Exception as ex:  # no reply (timeout, reset) or a bad one
        failed += 1
        errors.append("%s" % ex)
    time.sleep(0.01)
times.sort()
res = {"n": len(times), "failed": failed}
if during is not None:
    res["during"] = n_during
res.update(max_ms=round(times[-1], 1) if times else None,
           median_ms=round(times[len(times) // 2], 1) if times else None,
           errors=errors[:3])
with open(out, "w") as f:
    json.dump(res, f)
