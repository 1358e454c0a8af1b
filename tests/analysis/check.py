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
        if len(args) > 2:  # the one whose message names args[2]
            f = next((x for x in s.get("flags") or [] if x["id"] == args[0] and args[2] in x["message"]), f)
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
        # cost CPUS PRICE_CPU [PRICE_GB MEM_GIB]: the allocation's cost, the
        # used part from the job's own totals, tools summing to it
        c = s.get("cost") or sys.exit("no cost object")
        h, cpus, pc = s["wall_s"] / 3600, int(args[0]), float(args[1])
        pg, mem = (float(args[2]), float(args[3])) if len(args) > 3 else (0, 0)
        want = h * (cpus * pc + mem * pg)
        used = min(s["totals"]["cpu_s"] / 3600, h * cpus) * pc + \
            h * min(s["memory"]["peak_bytes"] / (1 << 30), mem) * pg
        tools = sum(t["cost"] for t in s["tools"])
        close = lambda a, b: abs(a - b) <= 1e-9 + abs(b) * 1e-9
        if not close(c["total"], want):
            sys.exit(f"cost {c['total']}, want wall x allocation x price = {want}")
        if not close(c["used"], used) or not close(c["used"] + c["unused"], c["total"]):
            sys.exit(f"used {c['used']} (want {used}) + unused {c['unused']} != total {c['total']}")
        if not close(tools, c["used"]):
            sys.exit(f"tools sum to {tools}, used is {c['used']}")
        if pg and not used > min(s["totals"]["cpu_s"] / 3600, h * cpus) * pc:
            sys.exit("no memory part in the used cost")
        print(f"cost {c['total']:.6f} (wall {s['wall_s']} s), used {c['used']:.6f} = "
              f"tools {tools:.6f}, unused {c['unused']:.6f}")
    elif check == "cost_spot":
        # cost_spot PRICE: instance basis at the spot price, tools sum
        c = s.get("cost") or sys.exit("no cost object")
        want = s["wall_s"] / 3600 * float(args[0])
        if c.get("pricing") != "spot" or c.get("basis") != "instance" or \
                c.get("instance_life_cycle") != "spot":
            sys.exit(f"not priced as spot: {c}")
        if abs(c["total"] - want) > 1e-9 + want * 1e-9:
            sys.exit(f"cost {c['total']}, want {want}")
        tools = sum(t["cost"] for t in s["tools"])
        if abs(tools - c["used"]) > 1e-9 + c["used"] * 1e-9:
            sys.exit(f"tools sum to {tools}, used is {c['used']}")
        print(c)
    elif check == "concurrency":
        # concurrency P95: threads of the job running or runnable at once
        use = s.get("allocation_use") or sys.exit("no allocation_use")
        c = use["concurrency"]
        if c["p95"] != int(args[0]):
            sys.exit(f"concurrency {c}, want p95 {args[0]}")
        print(f"concurrency {c} over {use['samples']} samples")
    elif check == "job_flag":
        # job_flag ID [present|absent]: the job's own flag (no tool)
        want = args[1] if len(args) > 1 else "present"
        f = [x for x in s.get("flags") or [] if x["id"] == args[0] and "tool" not in x]
        if bool(f) != (want == "present"):
            sys.exit(f"job flag {args[0]} {want} expected; flags: {[(x['id'], x.get('tool')) for x in s.get('flags') or []]}")
        print(f"flags: {[(x['id'], x.get('tool'), x['message']) for x in s.get('flags') or []]}")
    elif check == "sleeping":
        # sleeping SLEEPER WAITER: sleeping_tool names SLEEPER and no other
        # tool; WAITER (a pipe's reader, one process) was asleep as large a
        # share of its own wall and of the job's, but with the job busy
        # meanwhile, so only the job's CPU over its span tells them apart
        fl = [x for x in s.get("flags") or [] if x["id"] == "sleeping_tool"]
        if [x.get("tool") for x in fl] != [args[0]]:
            sys.exit(f"sleeping_tool about {[x.get('tool') for x in fl]}, want [{args[0]!r}]; "
                     f"tools {[(t['tool'], t['wall_s'], t['cpu_s']) for t in s['tools']]}")
        w = tool(s, args[1])
        asleep = w["wall_s"] - w["cpu_s"] - w.get("run_delay_s", 0) - w.get("blkio_delay_s", 0)
        if w["processes"] != 1 or asleep < 0.9 * w["wall_s"] or asleep < 0.05 * s["wall_s"]:
            sys.exit(f"{args[1]} was not asleep long enough to tell anything: {w}")
        ev, th = fl[0]["evidence"], fl[0].get("thresholds", {})
        if ev.get("asleep_s", 0) < 1.5 or ev.get("job_cpus_in_use", 1) >= 0.1 or th != {"flag_sleeping_share": 0.05}:
            sys.exit(f"sleeping_tool evidence {ev}, thresholds {th}")
        print(f"sleeping_tool: {fl[0]['message']} {ev}; {args[1]} asleep {asleep:.2f} s of {w['wall_s']:.2f} s, not flagged")
    elif check == "blocked":
        # blocked MIN_BLKIO_S [psi]: delay accounting on, the job's block
        # I/O delay at least MIN_BLKIO_S seconds; with psi, the io pressure
        # of its cgroup too
        b = s.get("blocked") or sys.exit("no blocked object")
        if b.get("delay_accounting") != "on":
            sys.exit(f"delay accounting {b.get('delay_accounting')}, want on: {b}")
        if b["blkio_delay_s"] < float(args[0]):
            sys.exit(f"block I/O delay {b['blkio_delay_s']} s (wall {s['wall_s']} s), want >= {args[0]} s")
        if len(args) > 1 and args[1] == "psi":
            p = b.get("psi") or sys.exit(f"no psi in {b}")
            if not p["io"]["some_s"] > 0:
                sys.exit(f"io pressure {p['io']}, want > 0")
        print(f"blocked {b} over {s['wall_s']} s")
    elif check == "tool_blkio":
        # tool_blkio TOOL MIN_S: the tool's and its process's block I/O delay
        t = tool(s, args[0])
        procs = [p for p in s["process_tree"] if p["tool"] == args[0]]
        if t.get("blkio_delay_s", 0) < float(args[1]) or not procs or \
                procs[0].get("blkio_delay_s", 0) < float(args[1]):
            sys.exit(f"{args[0]}: tool blkio_delay_s {t.get('blkio_delay_s')}, process {[p.get('blkio_delay_s') for p in procs]}, want >= {args[1]}")
        print(f"{args[0]}: blkio_delay_s {t['blkio_delay_s']} (process {procs[0]['blkio_delay_s']})")
    elif check == "limits":
        # limits MEM_BYTES: the cgroup's memory limit is the allocation
        lim = s.get("cgroup_limits") or sys.exit("no cgroup_limits")
        if lim.get("mem_bytes") != int(args[0]) or "mem_bytes" not in lim.get("used_as_allocation", []):
            sys.exit(f"cgroup_limits {lim}, want mem_bytes {args[0]} used as the allocation")
        if s["memory"].get("allocated_bytes") != int(args[0]):
            sys.exit(f"memory {s['memory']}, want allocated_bytes {args[0]}")
        if s["identity"]["allocation"].get("mem_bytes") != int(args[0]):
            sys.exit(f"identity allocation {s['identity']['allocation']}, want mem_bytes {args[0]}")
        print(f"cgroup_limits {lim}, memory {s['memory']}")
    elif check == "cpu_limit":
        # cpu_limit CPUS ALLOC: the cgroup's CPU quota, the allocation it made
        lim = s.get("cgroup_limits") or sys.exit("no cgroup_limits")
        if lim.get("cpus") != float(args[0]) or "cpus" not in lim.get("used_as_allocation", []):
            sys.exit(f"cgroup_limits {lim}, want cpus {args[0]} used as the allocation")
        if s["identity"]["allocation"].get("cpus") != int(args[1]):
            sys.exit(f"identity allocation {s['identity']['allocation']}, want cpus {args[1]}")
        print(f"cgroup_limits {lim}, allocation {s['identity']['allocation']}")
    else:
        sys.exit(f"unknown check {check}")


main()
