#!/usr/bin/env python3
"""idle.py - the sweep suite's idle hosts (tests/sweep/run.sh).

  idle.py spool SPOOL_DIR FIRST KNOWN  known idle_host records as
        tracerd's spool records numbered from FIRST (after jobs.py's), and
        into KNOWN (JSON) for the checks: prints how many
  idle.py record FILE HOST       FILE's idle_host records are HOST's one
        period ended by a job, and (when present) one ended by tracerd's
        stop, each self-consistent (start, end, idle_s, EC2, cost at 0.5/h)
  idle.py sweep ANSWER SOURCE KNOWN [FILE]  ANSWER (tracer sweep --json, every
        user's) has the known hosts' idle hours, EC2 instance-hours and
        costs (KNOWN "-": none of them), and FILE's real periods summed
        under their host

The known periods (whole seconds; T0 two days ago):
  n1  EC2 i-0123456789abcdef0 m5.large, 4 CPUs, 8 GiB, 0.2/h: 3600 s and
      1800 s -> 1.5 h, 6 core-h, cost 0.3, busy 1% and 4% (2% weighted)
  n3  2 CPUs, from 31 days ago to one hour past 30 days ago: only what
      lies in the window counts (from the answer's "from")
  n4  40 days ago: outside the window
"""
import json, math, os, sys, time, uuid, zlib
from datetime import datetime, timezone

GiB = 1 << 30


def known(now):
    t0 = now - 2 * 86400
    ec2 = {"instance_id": "i-0123456789abcdef0", "instance_type": "m5.large"}
    return [
        ("n1", 4, 8, t0 - 7200, t0 - 3600, 0.01, ec2, 0.2),
        ("n1", 4, 8, t0, t0 + 1800, 0.04, ec2, 0.2),
        ("n3", 2, 4, now - 31 * 86400, now - 30 * 86400 + 3600, 0.0, None, 0),
        ("n4", 2, 4, now - 40 * 86400, now - 40 * 86400 + 600, 0.0, None, 0),
    ]


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))


def record(host, cpus, mem, start, end, busy, ec2, price):
    r = {"record": "idle_host", "schema": "tracer.idle_host/1",
         "summary_id": str(uuid.uuid4()),
         "host": {"hostname": host, "cpus": cpus, "mem_bytes": mem * GiB},
         "cluster": "c1", "start": iso(start), "end": iso(end),
         "start_ns": str(start * 10**9), "end_ns": str(end * 10**9),
         "idle_s": float(end - start), "cpu_share_busy": busy, "ended_by": "job"}
    if ec2:
        r["ec2"] = ec2
    if price:
        r["cost"] = {"price_hour": price, "price_keys": "price_instance_hour",
                     "total": (end - start) / 3600 * price}
    return r


def spool(d, first, known_path):
    os.makedirs(d, mode=0o700, exist_ok=True)
    recs = [record(*k) for k in known(int(time.time()))]
    json.dump(recs, open(known_path, "w"))
    for i, r in enumerate(recs, int(first)):
        body = json.dumps(r, separators=(",", ":")).encode()
        with open(os.path.join(d, f"{i:016x}.rec"), "wb") as f:
            f.write(b"tracer-spool 1 %d %08x\n" % (len(body), zlib.crc32(body)) + body)
    print(len(recs))


def real_records(path):
    out = []
    for line in open(path):
        if line.strip():
            o = json.loads(line)
            if o.get("record") == "idle_host":
                out.append(o)
    return out


def check_one(r, host, ended_by, errors):
    start, end = int(r["start_ns"]), int(r["end_ns"])
    want = {"schema": "tracer.idle_host/1", "ended_by": ended_by}
    for k, v in want.items():
        if r.get(k) != v:
            errors.append(f"{k} {r.get(k)!r}, want {v!r}")
    if r["host"]["hostname"] != host or r["host"]["cpus"] != os.cpu_count():
        errors.append(f"host {r['host']}, want {host} with {os.cpu_count()} CPUs")
    if not r["host"].get("mem_bytes", 0) > 0:
        errors.append("no mem_bytes")
    if not end > start or abs(r["idle_s"] - (end - start) / 1e9) > 1e-5:
        errors.append(f"idle_s {r['idle_s']} is not end - start ({start} .. {end})")
    # it lasted at least idle_host_after_s (2 s): quiet from its start
    if (end - start) / 1e9 < 2:
        errors.append(f"idle_s {r['idle_s']} under idle_host_after_s (2 s)")
    for k, ns in (("start", start), ("end", end)):
        t = datetime.strptime(r[k], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        if abs(t.timestamp() - ns / 1e9) > 0.001:
            errors.append(f"{k} {r[k]} is not {k}_ns {ns}")
    if r.get("ec2") != {"instance_id": "i-0fedcba987654321f", "instance_type": "c5.xlarge"}:
        errors.append(f"ec2 {r.get('ec2')}")
    c = r.get("cost", {})
    if c.get("price_hour") != 0.5 or c.get("price_keys") != "price_instance_hour" or \
            abs(c.get("total", -1) - r["idle_s"] / 3600 * 0.5) > 1e-6:
        errors.append(f"cost {c}")
    if not 0 <= r.get("cpu_share_busy", -1) <= 1:
        errors.append(f"cpu_share_busy {r.get('cpu_share_busy')}")


def check_record(path, host):
    recs = real_records(path)
    errors = []
    ends = [r.get("ended_by") for r in recs]
    if ends not in (["job"], ["job", "stop"]):
        errors.append(f"periods ended by {ends}, want a job's (then the stop's)")
    for r, e in zip(recs, ends):
        check_one(r, host, e, errors)
    if len(recs) == 2 and int(recs[1]["start_ns"]) < int(recs[0]["end_ns"]):
        errors.append("the second period starts before the first ended")
    if errors:
        print("\n".join(errors))
        print(json.dumps(recs, indent=1))
        sys.exit(1)


def check_sweep(path, source, known_path, real):
    a = json.load(open(path))
    errors = []
    idle = a.get("idle_hosts")
    if a.get("source") != source or not isinstance(idle, dict):
        sys.exit(f"source {a.get('source')}, idle_hosts {idle!r}: {json.dumps(a)[:2000]}")
    frm = datetime.strptime(a["from"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    frm = math.floor(frm.timestamp())
    rows = {r["host"]: r for r in idle["rows"]}
    want = {"n1": (2, 1.5, 4, 0.3, 0.02)}
    if known_path == "-":  # FILE's periods alone
        rows.setdefault("n1", None)
        rows.setdefault("n3", None)
    if "n4" in rows:
        errors.append("n4's period, 40 days ago, is in the answer")
    n1 = rows.get("n1")
    if known_path == "-":
        if len(idle["rows"]) != 1:
            errors.append(f"hosts {list(rows)}: want FILE's only")
    elif not n1:
        errors.append("no n1")
    else:
        periods, hours, cpus, cost, busy = want["n1"]
        got = (n1["periods"], n1["idle_hours"], n1["cpus"], n1.get("cost"), n1["cpu_share_busy"],
               n1["idle_core_hours"], n1.get("instance_hours_without_job"), n1.get("ec2"),
               n1["cluster"], n1["mem_gib"])
        exp = (periods, hours, cpus, cost, busy, hours * cpus, hours,
               {"instance_id": "i-0123456789abcdef0", "instance_type": "m5.large"}, "c1", 8)
        if any(abs(g - e) > 1e-6 if isinstance(e, float) else g != e for g, e in zip(got, exp)):
            errors.append(f"n1 {got}, want {exp}")
    n3r = rows.get("n3")
    if known_path == "-":
        pass
    elif not n3r:
        errors.append("no n3")
    else:
        # begun before the window: only its end less the window's start
        end = next(int(r["end_ns"]) for r in json.load(open(known_path))
                   if r["host"]["hostname"] == "n3") / 1e9
        h = (end - frm) / 3600
        if abs(n3r["idle_hours"] - h) > 1e-6 or not 0 < h < 1 or "ec2" in n3r or \
                "cost" in n3r or n3r["periods"] != 1 or abs(n3r["idle_core_hours"] - 2 * h) > 1e-5:
            errors.append(f"n3 {n3r}: want one period of {h:.6f} h in the window, "
                          "no EC2, no cost")
    total, inst, cost = 0.0, 0.0, 0.0
    if real:
        recs = real_records(real)
        host = recs[0]["host"]["hostname"]
        hours = sum(r["idle_s"] for r in recs) / 3600
        r = rows.get(host)
        if not r:
            errors.append(f"no row for {host}, the real host")
        else:
            exp = (len(recs), hours, hours, {"instance_id": "i-0fedcba987654321f",
                                              "instance_type": "c5.xlarge"},
                   sum(x["cost"]["total"] for x in recs))
            got = (r["periods"], r["idle_hours"], r.get("instance_hours_without_job"), r.get("ec2"),
                   r.get("cost"))
            if got[0] != exp[0] or abs(got[1] - exp[1]) > 2e-6 or abs(got[2] - exp[2]) > 2e-6 \
                    or got[3] != exp[3] or abs(got[4] - exp[4]) > 2e-6:
                errors.append(f"{host}: {got}, want {exp}")
    for r in idle["rows"]:
        if r is None:
            continue
        total += r["idle_hours"]
        inst += r.get("instance_hours_without_job", 0)
        cost += r.get("cost", 0)
    if idle["hosts"] != len(idle["rows"]) or abs(idle["idle_hours"] - total) > 1e-5 or \
            abs(idle["instance_hours_without_job"] - inst) > 1e-5 or \
            abs(idle.get("cost", 0) - cost) > 1e-5:
        errors.append(f"totals {idle['hosts']} {idle['idle_hours']} "
                      f"{idle['instance_hours_without_job']} {idle.get('cost')}, rows sum to "
                      f"{len(idle['rows'])} {total} {inst} {cost}")
    order = [r["idle_hours"] for r in idle["rows"]]
    if order != sorted(order, reverse=True):
        errors.append(f"not ranked by idle hours: {order}")
    if a.get("by") == "host":
        for row in a["rows"]:
            want_h = rows.get(row["key"], {}).get("idle_hours", 0)
            if abs(row.get("idle_hours", -1) - want_h) > 1e-6:
                errors.append(f"--by host {row['key']}: idle_hours {row.get('idle_hours')}, "
                              f"want {want_h}")
    if errors:
        print("\n".join(errors))
        print(json.dumps(idle, indent=1)[:3000])
        sys.exit(1)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "spool":
        spool(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "record":
        check_record(sys.argv[2], sys.argv[3])
    elif cmd == "sweep":
        check_sweep(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        sys.exit(__doc__)
