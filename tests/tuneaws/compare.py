#!/usr/bin/env python3
"""compare.py - the AWS Batch jobs of tests/tuneaws before and after
`tracer tune --format aws-batch`, from what the test gave each job and
tracer-wrap's summaries.

  compare.py size AWS_JSON STEP
      the job definition STEP's size in the overrides, as
      "VCPUS MEMORY_MIB ATTEMPT_DURATION_S" (exit 1 when absent)
  compare.py check JOBS ARCHIVE AWS_JSON TUNE_JSON SIZES OOM_STEP
      the checks, one line each ("ok|WHAT" or "bad|WHAT: why"), then the
      table per step ("table|LINE")
  compare.py agree ARCHIVE TUNE_JSON RUN_ID
      each job of run RUN_ID: its summary's recommendation asks the
      memory tune asks for its step from that job alone (tune over the
      one run: the same peak, headroom, rounding and floor), in bytes
      and in the AWS Batch MEMORY of both; lines as for check

JOBS: one line per job, tab-separated: run, step (the job definition),
job id, vCPUs and MiB it was given (its cgroup's cpu quota and memory
limit, and its ECS Limits), the wrapper's exit code, the OOM kills its
cgroup counted.  ARCHIVE: the wrapper's summaries (identity.job_id is
the AWS_BATCH_JOB_ID).  AWS_JSON: the overrides tune wrote; TUNE_JSON:
its --format json of the same runs (which steps used the fit of memory
on input size); SIZES: input bytes of runs 1..4; OOM_STEP: the step the
first runs gave too little memory.

What is compared, per step, run 4 against the mean of runs 1-3:
  - allocated vCPU-seconds: the job's vCPUs x its wall time;
  - allocated GB-seconds: its memory in GiB x its wall time, per input
    byte when tune sized that step by its fit;
  - each at most half (the memory of OOM_STEP excepted: it must rise),
    and so the pipeline's totals.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tuneproof"))
from proofcheck import MiB, Checks, compare_allocations, fitted_steps  # noqa: E402



def size(aws_json, step):
    try:
        with open(aws_json, encoding="utf-8") as f:
            reqs = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{aws_json}: {e}", file=sys.stderr)
        return 1
    for req in reqs:
        if req.get("jobDefinition") != step:
            continue
        rr = {r["type"]: int(r["value"])
              for r in req["containerOverrides"]["resourceRequirements"]}
        print(rr["VCPU"], rr["MEMORY"], req["timeout"]["attemptDurationSeconds"])
        return 0
    print(f"{aws_json}: no overrides for {step}", file=sys.stderr)
    return 1


def load_jobs(path):
    jobs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) != 7:
                continue
            jobs.append({"run": int(c[0]), "step": c[1], "id": c[2], "vcpus": int(c[3]),
                         "mib": int(c[4]), "rc": int(c[5]),
                         "oom_kills": int(c[6]) if c[6].isdigit() else None})
    return jobs


def load_summaries(path):
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    s = json.loads(line)
                    out[str(s.get("identity", {}).get("job_id"))] = s
    except FileNotFoundError:
        pass
    return out


def load_overrides(path):
    try:
        with open(path, encoding="utf-8") as f:
            reqs = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for req in reqs:
        rr = {r["type"]: int(r["value"]) for r in req["containerOverrides"]["resourceRequirements"]}
        out[req["jobDefinition"]] = (rr.get("VCPU"), rr.get("MEMORY"),
                                     req.get("timeout", {}).get("attemptDurationSeconds"))
    return out




def check_job(c, j, s):
    """The summary is the job's: the wrapper's, with the size it was given."""
    where = f"run {j['run']} {j['step']}"
    if s is None:
        c.ok(False, f"{where}: the wrapper wrote the job's summary", f"none for job {j['id']}")
        return False
    ident = s.get("identity", {})
    alloc = ident.get("allocation", {})
    got = (s.get("tracer", {}).get("source"), ident.get("scheduler"), ident.get("task_name"),
           alloc.get("cpus"), alloc.get("mem_bytes"), s.get("cgroup_limits", {}).get("mem_bytes"))
    want = ("tracer-wrap", "aws-batch", j["step"], j["vcpus"], j["mib"] * MiB, j["mib"] * MiB)
    c.ok(got == want, f"{where}: summary by tracer-wrap, the job definition as its task, "
         "the job's size as its allocation and cgroup limit", f"got {got}, want {want}")
    return True


def check(jobs_path, archive, aws_json, tune_json, sizes, oom_step):
    jobs = load_jobs(jobs_path)
    sums = load_summaries(archive)
    over = load_overrides(aws_json)
    fitted = fitted_steps(tune_json)
    sizes = [int(x) for x in sizes.split(",")]
    c = Checks()
    runs = {n: {} for n in (1, 2, 3, 4)}
    for j in jobs:
        j["summary"] = sums.get(j["id"])
        if check_job(c, j, j["summary"]):
            runs[j["run"]][j["step"]] = j
    steps = [j["step"] for j in jobs if j["run"] == 1]
    c.ok(len(steps) >= 5, f"the pipeline has {len(steps)} steps (job definitions)", "want at least 5")
    for n in runs:
        c.ok(set(runs[n]) == set(steps), f"run {n}: every step ran and was recorded",
             f"missing {sorted(set(steps) - set(runs[n]))}")
    c.ok(set(over) == set(steps), "tune wrote overrides for every job definition",
         f"overrides for {sorted(over)}")

    # the OOM kill before tuning: the cgroup's memory limit, seen by tracer
    oom = [n for n in (1, 2, 3) if runs[n].get(oom_step, {}).get("oom_kills")]
    c.ok(bool(oom), f"{oom_step}: OOM-killed by its cgroup's memory limit in a run before tuning",
         str({n: runs[n].get(oom_step, {}).get("oom_kills") for n in (1, 2, 3)}))
    for n in oom:
        j = runs[n][oom_step]
        s = j["summary"]
        c.ok(j["rc"] == 137 and s.get("state") == "OUT_OF_MEMORY" and s.get("exit", {}).get("signal") == 9,
             f"{oom_step} run {n}: exit 137 (SIGKILL) and tracer's summary says OUT_OF_MEMORY",
             f"rc {j['rc']}, state {s.get('state')}, exit {s.get('exit')}")
        o = s.get("oom") or {}
        c.ok(o.get("kind") == "cgroup" and o.get("limit_bytes") == j["mib"] * MiB
             and o.get("victim", {}).get("tool") not in (None, "?") and o.get("kills") == j["oom_kills"],
             f"{oom_step} run {n}: the summary's oom names the victim, a cgroup kill at the "
             "container's limit, as many kills as the cgroup counted",
             f"oom {json.dumps(s.get('oom'))[:300]}, cgroup {j['oom_kills']} kills")
    others = [f"{r} run {n}: rc {j['rc']}, {j['summary'].get('state')}"
              for n in (1, 2, 3) for r, j in runs[n].items()
              if r != oom_step and (j["rc"] != 0 or j["summary"].get("state") != "COMPLETED")]
    c.ok(not others, "runs 1-3: every other step exited 0, COMPLETED", "; ".join(others))

    # run 4: every job completed, none OOM-killed, with the overrides' size
    for r in steps:
        j = runs[4].get(r)
        if not j:
            continue
        s = j["summary"]
        c.ok(j["rc"] == 0 and s.get("state") == "COMPLETED" and j["oom_kills"] == 0
             and not s.get("oom", {}).get("count"),
             f"run 4: {r} exited 0, COMPLETED, no OOM kill (cgroup and summary)",
             f"rc {j['rc']}, state {s.get('state')}, cgroup OOM kills {j['oom_kills']}, "
             f"oom {json.dumps(s.get('oom'))[:160]}")
        want = over.get(r, (None, None, None))[:2]
        c.ok((j["vcpus"], j["mib"]) == want, f"run 4: {r} ran with the size of its overrides",
             f"ran {(j['vcpus'], j['mib'])}, overrides {want}")

    for n in runs:
        for j in runs[n].values():
            j.update(cpus=j["vcpus"], secs=j["summary"].get("wall_s", 0), done=j["rc"] == 0,
                     size=f"{j['vcpus']}v {j['mib']}M")
    for r, j in runs[4].items():
        j["size"] += f" {over.get(r, (0, 0, 0))[2]}s"
    compare_allocations(
        c, runs, steps, oom_step, sizes, fitted, "vCPU",
        ("job definition", "before", "after (tune)", "used: peak, cpu", "alloc vCPU-s run1 2 3 4",
         "alloc GB-s run1 2 3 4", "vCPU-s 4/mean", "GB-s 4/mean"),
        f"inputs (bytes) run 1-4: {', '.join(str(x) for x in sizes)}; sizes as vCPUs, MiB "
        "(and attemptDurationSeconds); used: largest peak of a run that exited 0, mean CPU time")
    return c.bad == 0


def agree(archive, tune_json, run_id):
    """The summary's recommendation and tune's request of the same job."""
    c = Checks()
    try:
        with open(tune_json, encoding="utf-8") as f:
            steps = {s["task"]: s for s in json.load(f).get("steps", [])}
    except (OSError, ValueError, KeyError) as e:
        c.ok(False, "tune's JSON of the run", f"{tune_json}: {e!r}")
        return False
    jobs = [s for s in load_summaries(archive).values()
            if s.get("identity", {}).get("run_id") == run_id]
    c.ok(len(jobs) >= 5 and len(jobs) == len(steps),
         f"run {run_id}: one tune step per job ({len(jobs)} jobs)", f"steps {sorted(steps)}")
    for s in jobs:
        task = s["identity"].get("task_name")
        rec = s.get("recommendation") or {}
        st = steps.get(task, {})
        req = st.get("request", {})
        batch = (rec.get("syntax") or {}).get("aws_batch", "")
        try:
            mib = {r["type"]: int(r["value"]) for r in
                   json.loads("{" + batch + "}")["resourceRequirements"]}.get("MEMORY")
        except (ValueError, KeyError, TypeError):
            mib = None
        peak = s.get("memory", {}).get("peak_bytes", 0)
        runs = st.get("runs", {}).get("total")
        c.ok(runs == 1 and rec.get("mem_bytes") is not None
             and rec.get("mem_bytes") == req.get("mem_bytes") and mib is not None
             and mib * MiB == req.get("mem_bytes"),
             f"{task}: the summary's recommendation and tune ask the same memory "
             f"({(req.get('mem_bytes') or 0) // MiB} MiB for a peak of {peak / MiB:.1f} MiB)",
             f"summary {rec.get('mem_bytes')} (AWS Batch MEMORY {mib} MiB), "
             f"tune {req.get('mem_bytes')} over {runs} runs")
    return c.bad == 0


def main(argv):
    if len(argv) == 4 and argv[1] == "size":
        return size(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "agree":
        agree(*argv[2:5])
        return 0
    if len(argv) == 8 and argv[1] == "check":
        check(*argv[2:8])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
