#!/usr/bin/env python3
"""compare.py - the runs of the tests/tuneproof pipeline before and after
`tracer tune`, from Slurm's accounting and tracer's summaries.

  compare.py ready SACCT NDJSON N
      exit 0 when sacct lists N jobs or more, every one ended, and
      tracerd has written a summary of each (for wait_until)
  compare.py check SACCT NDJSON PROFILE TUNE_JSON SIZES OOM_RULE
      the checks, one line each ("ok|WHAT" or "bad|WHAT: why"), then the
      table per rule ("table|LINE")

SACCT: `sacct -X -n -P -u USER --format=JobIDRaw,JobName,State,AllocCPUS,
AllocTRES,ElapsedRaw,TimelimitRaw` (one line per job: its allocation).
NDJSON: tracerd's summaries (identity.run_id PIPELINE-runN tells the
runs apart; the batch step of each job holds its rule).  PROFILE: the
Snakemake profile's config.yaml that `tracer tune` wrote; TUNE_JSON: its
`--format json` output of the same runs (which steps used the fit of
memory on input size); SIZES: the input bytes of runs 1..4, comma
separated; OOM_RULE: the rule the first runs gave too little memory.

What is compared, per rule, run 4 against the mean of runs 1-3:
  - allocated core-seconds: AllocCPUS x ElapsedRaw (sacct's CPUTimeRAW);
  - allocated memory GB-seconds: the allocation's mem (AllocTRES) in GiB x
    ElapsedRaw; per input byte when tune sized that rule by the fit;
  - each must be at most half (the memory of OOM_RULE excepted: its
    request must rise instead), and so must the pipeline's totals.
Run 4 must have every rule COMPLETED in sacct and in tracer's summary,
with the allocation the profile asked for.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tuneproof"))
from proofcheck import Checks, compare_allocations, fitted_steps  # noqa: E402

ENDED = {"COMPLETED", "FAILED", "OUT_OF_MEMORY", "TIMEOUT", "CANCELLED", "NODE_FAIL",
         "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


def mem_mb(tres):
    """AllocTRES 'billing=4,cpu=4,mem=2000M,node=1' -> 2000 (MiB)."""
    m = re.search(r"(?:^|,)mem=([0-9.]+)([KMGT]?)", tres)
    if not m:
        return None
    scale = {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[m.group(2)]
    return float(m.group(1)) * scale


def load_sacct(path):
    jobs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("|")
            if len(c) < 7 or not c[0].isdigit():
                continue
            jobs[c[0]] = {"rule": c[1], "state": c[2].split(" ")[0],
                          "cpus": int(c[3] or 0), "mem_mb": mem_mb(c[4]),
                          "elapsed": int(c[5] or 0),
                          "limit_min": int(c[6]) if c[6].isdigit() else None}
    return jobs


def load_summaries(path):
    """job id -> the batch step's summary (the rule's shell runs there)."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                s = json.loads(line)
                ident = s.get("identity", {})
                if ident.get("step_id") == "batch" and ident.get("job_id") is not None:
                    out[str(ident["job_id"])] = s
    except FileNotFoundError:
        pass
    return out


def ready(sacct, ndjson, want):
    jobs = load_sacct(sacct)
    sums = load_summaries(ndjson)
    waiting = [j for j, v in jobs.items() if v["state"] not in ENDED or j not in sums]
    print(f"{len(jobs)} jobs in sacct (want {want}), waiting for {waiting}")
    return len(jobs) >= want and not waiting


def run_of(summary):
    m = re.search(r"-run([0-9]+)$", summary["identity"].get("run_id", ""))
    return int(m.group(1)) if m else None


def load_profile(path):
    """config.yaml -> {rule: {"threads": n, "mem_mb": n, "runtime": n}}."""
    import yaml  # python3-yaml, a dependency of Debian's snakemake
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    rules = {}
    for e in doc.get("set-threads", []) or []:
        rule, _, n = str(e).partition("=")
        rules.setdefault(rule, {})["threads"] = int(n)
    for e in doc.get("set-resources", []) or []:
        key, _, n = str(e).partition("=")
        rule, _, res = key.partition(":")
        rules.setdefault(rule, {})[res] = int(n)
    return rules


def fmt_req(j):
    return f"{j['cpus']}c {j['mem_mb']:.0f}M {j['limit_min']}m"


def check(sacct, ndjson, profile, tune_json, sizes, oom_rule):
    jobs = load_sacct(sacct)
    sums = load_summaries(ndjson)
    sizes = [int(s) for s in sizes.split(",")]
    fitted = fitted_steps(tune_json)
    c = Checks()
    # runs[n][rule] = sacct job (+ its summary)
    runs = {n: {} for n in (1, 2, 3, 4)}
    for jid, j in sorted(jobs.items(), key=lambda kv: int(kv[0])):
        s = sums.get(jid)
        n = run_of(s) if s else None
        if n not in runs:
            c.ok(False, f"job {jid} ({j['rule']}) belongs to a run",
                 "no summary with run_id PIPELINE-runN")
            continue
        j["summary"] = s
        j["id"] = jid
        runs[n][j["rule"]] = j
    rules = sorted(set().union(*(set(r) for r in runs.values())))
    c.ok(len(rules) >= 5, f"the pipeline has {len(rules)} rules on Slurm", "want at least 5")
    for n in (1, 2, 3, 4):
        c.ok(set(runs[n]) == set(rules), f"run {n}: every rule submitted",
             f"missing {sorted(set(rules) - set(runs[n]))}")

    # the OOM kill of the first runs
    oom_runs = [n for n in (1, 2, 3) if runs[n].get(oom_rule, {}).get("state") == "OUT_OF_MEMORY"]
    c.ok(bool(oom_runs), f"{oom_rule}: OUT_OF_MEMORY in sacct in a run before tuning",
         str({n: runs[n].get(oom_rule, {}).get("state") for n in (1, 2, 3)}))
    for n in oom_runs:
        s = runs[n][oom_rule]["summary"]
        c.ok(s.get("state") == "OUT_OF_MEMORY" and s.get("oom", {}).get("kind") == "cgroup",
             f"{oom_rule} run {n}: tracer's summary says OUT_OF_MEMORY, a cgroup OOM kill",
             f"state {s.get('state')}, oom {json.dumps(s.get('oom'))[:200]}")
    others = [f"{r} run {n}: {runs[n][r]['state']}" for n in (1, 2, 3) for r in runs[n]
              if r != oom_rule and runs[n][r]["state"] != "COMPLETED"]
    c.ok(not others, "runs 1-3: every other rule COMPLETED", "; ".join(others))

    # run 4: completed, with the profile's requests
    prof = load_profile(profile)
    for r in rules:
        j = runs[4].get(r)
        if not j:
            continue
        st = j["summary"].get("state")
        c.ok(j["state"] == "COMPLETED" and st == "COMPLETED",
             f"run 4: {r} COMPLETED (sacct and tracer)", f"sacct {j['state']}, tracer {st}")
        p = prof.get(r, {})
        want = (p.get("threads"), p.get("mem_mb"), p.get("runtime"))
        got = (j["cpus"], round(j["mem_mb"]) if j["mem_mb"] else None, j["limit_min"])
        c.ok(want == got, f"run 4: {r} allocated what the profile asks (threads, mem_mb, runtime)",
             f"profile {want}, Slurm {got}")

    # allocation over time, run 4 against the mean of runs 1-3.  sacct
    # counts whole seconds (ElapsedRaw): a job that held its allocation
    # less than one second reads 0 on a fast machine, so a started second
    # counts as one (the allocation was held for part of it)
    for n in runs:
        for j in runs[n].values():
            j.update(mib=j["mem_mb"] or 0, secs=max(j["elapsed"], 1),
                     done=j["state"] == "COMPLETED",
                     size=fmt_req(j))
    compare_allocations(
        c, runs, rules, oom_rule, sizes, fitted, "core",
        ("rule", "requested before", "after", "used: peak, cpu", "alloc core-s run1 2 3 4",
         "alloc GB-s run1 2 3 4", "core-s 4/mean", "GB-s 4/mean"),
        f"inputs (bytes) run 1-4: {', '.join(str(s) for s in sizes)}; requests as cpus, mem MiB, "
        "time limit min; used: largest peak of a completed run, mean CPU time", digits=(0, 1))
    return c.bad == 0


def main(argv):
    if len(argv) == 5 and argv[1] == "ready":
        return 0 if ready(argv[2], argv[3], int(argv[4])) else 1
    if len(argv) == 8 and argv[1] == "check":
        check(*argv[2:8])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
