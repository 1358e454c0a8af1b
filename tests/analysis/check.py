#!/usr/bin/env python3
"""check.py - assertions on the analysis fields of a job summary.

usage: check.py SUMMARY_FILE JOB_FILE CHECK [ARGS...]
Same conventions as tests/integration/check.py (tests/helpers/summaries.py):
exit 0 when the check holds, 1 with the reason.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from summaries import tool, within  # noqa: E402
import summaries  # noqa: E402


def load(path, jobfile):
    return summaries.load(path, "@" + jobfile)

MiB = 1 << 20


def flag(s, fid):
    for f in s.get("flags") or []:
        if f["id"] == fid:
            return f
    return None


def main():
    path, jobfile, check, *args = sys.argv[1:]
    s = load(path, jobfile)
    if check == "own_peak":
        # own_peak TOOL MAX_MIB MIN_MAXRSS_MIB: the tool's own image stayed
        # small while the kernel's maxrss carries the parent's image
        t = tool(s, args[0])
        if t["peak_rss_bytes"] >= int(args[1]) * MiB:
            sys.exit(f"{args[0]}: own peak {t['peak_rss_bytes']} B, want < {args[1]} MiB")
        if t["maxrss_bytes"] < int(args[2]) * MiB:
            sys.exit(f"{args[0]}: maxrss {t['maxrss_bytes']} B, want >= {args[2]} MiB (parent's image)")
        print(f"{args[0]}: own peak {t['peak_rss_bytes'] / MiB:.1f} MiB, kernel maxrss {t['maxrss_bytes'] / MiB:.1f} MiB")
    elif check == "own_peak_truth":
        truth = json.load(open(args[1]))
        within("peak_rss_bytes", tool(s, args[0])["peak_rss_bytes"], truth["maxrss_kb"] * 1024, 0.02)
    elif check == "run_delay":
        # run_delay TOOL N SHARE: N processes of TOOL, each waited for a CPU
        # at least SHARE of its wall time
        procs = [p for p in s["process_tree"] if p["tool"] == args[0]]
        if len(procs) != int(args[1]):
            sys.exit(f"{len(procs)} {args[0]} processes, want {args[1]}")
        for p in procs:
            share = p["run_delay_s"] / p["wall_s"]
            if share < float(args[2]):
                sys.exit(f"pid {p['pid']}: run delay {p['run_delay_s']} s of {p['wall_s']} s wall ({share:.0%})")
        print("run delay / wall:", [round(p["run_delay_s"] / p["wall_s"], 2) for p in procs])
    elif check == "state":
        # state WORD [EXIT_CODE]
        if s.get("state") != args[0]:
            sys.exit(f"state {s.get('state')!r}, want {args[0]} (exit {s['exit']}, oom {s.get('oom')})")
        if len(args) > 1 and str(s["exit"].get("code")) != args[1]:
            sys.exit(f"exit code {s['exit'].get('code')}, want {args[1]}")
        print(f"state {s['state']}, exit {s['exit']}")
    elif check == "oom_detail":
        # oom_detail VICTIM_TOOL LARGEST_TOOL KIND
        o = s.get("oom")
        if not o:
            sys.exit("no oom object")
        if o.get("victim", {}).get("tool") != args[0]:
            sys.exit(f"victim {o.get('victim')}, want {args[0]}")
        if o.get("largest", {}).get("tool") != args[1]:
            sys.exit(f"largest holder {o.get('largest')}, want {args[1]}")
        if o.get("kind") != args[2]:
            sys.exit(f"kind {o.get('kind')}, want {args[2]}")
        print(f"oom: {o}")
    elif check == "flag":
        # flag ID [present|absent]
        want = args[1] if len(args) > 1 else "present"
        f = flag(s, args[0])
        if (f is not None) != (want == "present"):
            sys.exit(f"flag {args[0]} {want} expected; flags: {[x['id'] for x in s.get('flags') or []]}")
        if f:
            for k in ("id", "severity", "message", "evidence"):
                if k not in f:
                    sys.exit(f"flag without {k}: {f}")
            if len(args) > 2 and args[2] not in f["message"]:
                sys.exit(f"flag message {f['message']!r} lacks {args[2]!r}")
        print(f"flags: {[(x['id'], x['message']) for x in s.get('flags') or []]}")
    elif check == "busy":
        # busy BUSY_CPU SHARE IDLE_CPU
        use = s.get("allocation_use") or sys.exit(f"no allocation_use; allocation {s['identity'].get('allocation')}")
        cpus = {c["cpu"]: c for c in use["cpus"]}
        b, i = int(args[0]), int(args[2])
        if b not in cpus or cpus[b]["busy"] <= float(args[1]):
            sys.exit(f"CPU {b}: {cpus.get(b)}, want busy > {args[1]}")
        if i not in cpus or str(i) not in use["idle_cpus"].split(","):
            sys.exit(f"CPU {i} not idle: {use}")
        print(f"cpus {use['cpus']}, idle {use['idle_cpus']}")
    elif check == "rec_cpus":
        r = s.get("recommendation") or sys.exit("no recommendation")
        n = args[0]
        sx = r["syntax"]
        want = {"slurm": f"--cpus-per-task={n} ", "nextflow": f"cpus = {n}\n",
                "snakemake": f"threads: {n}\n", "aws_batch": f'"VCPU", "value": "{n}"'}
        if r["cpus"] != int(n):
            sys.exit(f"recommended {r['cpus']} CPUs, want {n}")
        for k, w in want.items():
            if w not in sx.get(k, ""):
                sys.exit(f"{k}: {sx.get(k)!r} lacks {w!r}")
        print(sx)
    elif check == "rec_runs":
        r = s.get("recommendation") or sys.exit("no recommendation")
        if r.get("runs") != int(args[0]):
            sys.exit(f"recommendation over {r.get('runs')} runs, want {args[0]}: {r}")
        print(r["basis"], r["syntax"]["slurm"])
    elif check == "cost":
        c = s.get("cost") or sys.exit("no cost object")
        want = s["wall_s"] / 3600 * int(args[0]) * float(args[1])
        if abs(c["total"] - want) > 1e-6 + want * 1e-6:
            sys.exit(f"cost {c['total']}, want {want}")
        print(f"cost {c['total']:.6f} (wall {s['wall_s']} s), unused {c.get('unused')}")
    else:
        sys.exit(f"unknown check {check}")


main()
