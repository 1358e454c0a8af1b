#!/usr/bin/env python3
"""compare.py - tracer's job-level numbers against sacct's, for one job.

  compare.py NDJSON SACCT_FILE JOBIDRAW VIEW_JSON

NDJSON: tracerd's summaries; SACCT_FILE: the output of
  sacct -j ID -P -n --format=JobIDRaw,JobID,State,AllocCPUS,ElapsedRaw,TotalCPU,NNodes,Submit,Start
(with SLURM_TIME_FORMAT=%s) for the job; JOBIDRAW: the job's own id (an
array task's too).  VIEW_JSON is `tracer show JOBID --json` (the job view
of lib/jobview.c, one summary-shaped object): CPU time, state and wall
time, the allocation and the nodes are the view's (it groups steps by
identity.node_name, which tells two slurmds on one machine apart); the
allocation is also rolled up here from the step summaries (the largest
step allocation seen on each node, summed over nodes) and must agree.

Prints one line per check: "ok|DESCRIPTION" or "bad|DESCRIPTION: why".
How the numbers are compared:
  - CPU time: |tracer - TotalCPU| <= 2% of TotalCPU (TotalCPU of the job
    line without -X: the sum over its steps, from Slurm's cgroup gather);
  - state, AllocCPUS and NNodes: exactly;
  - elapsed: ElapsedRaw (whole seconds) against tracer's job wall, from
    the job start slurmctld reported (identity.job_start_ns) to the end of
    the last step, within 2 s (Slurm's end is when slurmctld hears of it);
  - CPU efficiency: tracer's CPU time / (AllocCPUS x ElapsedRaw) within 1
    percentage point of seff's TotalCPU / (AllocCPUS x ElapsedRaw)
    (ElapsedRaw has whole seconds only: the same denominator on both sides,
    so what is compared is the numerator, in seff's units);
  - scheduler facts (identity): submit and start (whole seconds) equal to
    sacct's Submit and Start, queue_wait_s their difference.
"""
import json
import sys


def cpu_seconds(text):
    """sacct's TotalCPU: [DD-][HH:]MM:SS[.mmm]."""
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
    parts = [float(p) for p in text.split(":")]
    secs = 0.0
    for p in parts:
        secs = secs * 60 + p
    return days * 86400 + secs


def load(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


def sacct_job(path, raw):
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("|")
            if len(cols) >= 9 and cols[0] == raw:
                return {"state": cols[2].split()[0], "alloc": int(cols[3]),
                        "elapsed": int(cols[4]), "cpu": cpu_seconds(cols[5]),
                        "nodes": int(cols[6]), "submit": int(cols[7]),
                        "start": int(cols[8])}
    return None


def rollup(sums):
    """The job-level numbers from the job's step summaries."""
    cpu = sum(s["totals"]["cpu_s"] for s in sums)
    per_node = {}
    for s in sums:
        ident = s["identity"]
        node = ident.get("node_name") or s["host"]["hostname"]
        cpus = ident.get("allocation", {}).get("cpus", 0)
        per_node[node] = max(per_node.get(node, 0), cpus)
    batch = [s for s in sums if s["identity"].get("step_id") == "batch"]
    end_ns = max(int(s["end_ns"]) for s in sums)
    starts = [s["identity"].get("job_start_ns") for s in sums]
    start_ns = min([int(x) for x in starts if x] or [min(int(s["start_ns"]) for s in sums)])
    return {"cpu": cpu, "alloc": sum(per_node.values()), "nodes": len(per_node),
            "state": batch[0]["state"] if batch else None,
            "wall": (end_ns - start_ns) / 1e9, "node_names": sorted(per_node)}


def from_view(view, mine):
    """CPU time, state and wall from the job view over the roll-up's."""
    mine = dict(mine)
    hosts = view.get("hosts") or []
    mine.update(cpu=view["totals"]["cpu_s"], state=view.get("state"), wall=view.get("wall_s"),
                alloc=view.get("identity", {}).get("allocation", {}).get("cpus"),
                nodes=len(hosts), node_names=sorted(h.get("hostname") for h in hosts),
                rolled=mine)
    return mine


def main():
    ndjson, sacct_file, raw = sys.argv[1:4]
    sums = [s for s in load(ndjson) if s.get("identity", {}).get("job_id") == raw]
    job = sacct_job(sacct_file, raw)
    res = []

    def check(ok, desc, why=""):
        res.append(("ok|" if ok else "bad|") + desc + ("" if ok else ": " + why))

    if job is None:
        print(f"bad|job {raw}: no line in sacct's answer")
        return
    if not sums:
        print(f"bad|job {raw}: no summary from tracerd")
        return
    mine = rollup(sums)
    with open(sys.argv[4], encoding="utf-8") as f:
        view = json.load(f)
    n = len(view.get("steps", [view]))
    check(n == len(sums), f"job {raw}: the job view has its {len(sums)} step summaries",
          f"it has {n}")
    mine = from_view(view, mine)
    tol = 0.02 * job["cpu"]
    check(abs(mine["cpu"] - job["cpu"]) <= tol,
          f"job {raw}: CPU time {mine['cpu']:.3f} s, sacct TotalCPU {job['cpu']:.3f} s (2%)",
          f"differ by {abs(mine['cpu'] - job['cpu']):.3f} s > {tol:.3f} s")
    check(mine["state"] == job["state"], f"job {raw}: state {job['state']}",
          f"tracer {mine['state']}, sacct {job['state']}")
    check(mine["rolled"]["alloc"] == mine["alloc"] and mine["rolled"]["nodes"] == mine["nodes"],
          f"job {raw}: the view's allocation is the steps' largest per node, summed",
          f"view {mine['alloc']} CPUs on {mine['nodes']}, steps {mine['rolled']['alloc']} "
          f"on {mine['rolled']['nodes']}")
    check(mine["alloc"] == job["alloc"], f"job {raw}: {job['alloc']} CPUs allocated",
          f"tracer {mine['alloc']}, sacct AllocCPUS {job['alloc']}")
    check(mine["nodes"] == job["nodes"], f"job {raw}: {job['nodes']} node(s) {mine['node_names']}",
          f"tracer {mine['nodes']} {mine['node_names']}, sacct NNodes {job['nodes']}")
    check(mine["wall"] is not None and abs(mine["wall"] - job["elapsed"]) <= 2,
          f"job {raw}: elapsed {mine['wall']:.2f} s, sacct ElapsedRaw {job['elapsed']} s (2 s)",
          "too far apart")
    if job["elapsed"] > 0 and job["alloc"] > 0:
        den = job["alloc"] * job["elapsed"]
        e_t, e_s = 100 * mine["cpu"] / den, 100 * job["cpu"] / den
        check(abs(e_t - e_s) <= 1.0,
              f"job {raw}: CPU efficiency {e_t:.1f}%, seff's {e_s:.1f}% (1 point)", "too far apart")
    else:
        check(False, f"job {raw}: CPU efficiency", "sacct gives no elapsed time or allocation")
    ident = [s["identity"] for s in sums]
    subm = {i.get("submit_ns") for i in ident}
    start = {i.get("job_start_ns") for i in ident}
    check(subm == {job["submit"] * 10**9},
          f"job {raw}: identity.submit_ns is sacct's Submit in every summary",
          f"{sorted(map(str, subm))} vs {job['submit']}")
    check(start == {job["start"] * 10**9},
          f"job {raw}: identity.job_start_ns is sacct's Start in every summary",
          f"{sorted(map(str, start))} vs {job['start']}")
    waits = {i.get("queue_wait_s") for i in ident}
    check(waits == {float(job["start"] - job["submit"])},
          f"job {raw}: identity.queue_wait_s = start - submit", f"{waits}")
    reqs = {json.dumps(i.get("request", {}).get("cpus")) for i in ident}
    check(reqs == {str(job["alloc"])}, f"job {raw}: identity.request.cpus", f"{reqs}")
    nodes = {i.get("allocation", {}).get("nodes") for i in ident}
    check(nodes == {job["nodes"]}, f"job {raw}: identity.allocation.nodes", f"{nodes}")
    print("\n".join(res))


if __name__ == "__main__":
    main()
