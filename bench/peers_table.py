#!/usr/bin/env python3
"""peers_table.py RESDIR [DOC] - the table of the peers benchmark
(bench/peers.sh) from the passes in RESDIR: truth.N.json, and per
collector C: C.N.json (peers_collect.py's answer), C.N.wall and C.N.base
(the pass's wall time and its paired pass without a collector, seconds),
C.N.cost ("cpu_s hwm_kb" of the collector's own process) and C.skip (why
it did not run).  Prints the table; with DOC, writes it into that file
between the peers markers (replacing what was there; RESDIR/meta.json
gives the date, machine and command)."""
import glob
import json
import os
import re
import statistics
import sys

# label, identity, what it has that tracer lacks
COLLECTORS = [
    ("tracer", "tracer (`tracer run`)", "job, step, tool",
     "-"),
    ("slurm30", "Slurm jobacct_gather/cgroup, 30 s", "job, step",
     "already on every Slurm cluster, and sacct keeps it for years"),
    ("slurm1", "Slurm jobacct_gather/cgroup, 1 s", "job, step",
     "the same, sampled every second"),
    ("snakemake", "Snakemake `benchmark:`", "rule (step)",
     "part of the workflow itself: one line in the rule, a TSV per rule, repeatable runs"),
    ("psutil500", "/proc sampling (Nextflow-style), 500 ms", "step (its tree)",
     "needs no root, no kernel feature, no daemon: runs anywhere Python runs"),
    ("psutil5s", "/proc sampling (Nextflow-style), 5 s", "step (its tree)",
     "the same, at a tenth of the sampling cost"),
    ("procexp", "process-exporter + Prometheus, 15 s", "no (process name)",
     "time series of every process group on the host in the Prometheus a site already runs"),
    ("pidstat", "pidstat -u -r -d -h -p ALL 1", "no (pid, name)",
     "needs nothing but sysstat; per-second rates of every process, readable by eye"),
    ("acct", "BSD process accounting (acct)", "no (pid, ppid)",
     "every process of the host counted at its exit with its pid and parent, at no cost measurable here; in every Linux kernel"),
]


def load(path):
    with open(path) as f:
        return json.load(f)


def passes(res, name):
    return sorted(glob.glob(os.path.join(res, name + ".[0-9]*.json")),
                  key=lambda p: int(re.search(r"\.(\d+)\.json$", p).group(1)))


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fnum(x, fmt="%.2f"):
    return "-" if x is None else fmt % x


def truth_of(res):
    runs = [load(p) for p in passes(res, "truth")]
    if not runs:
        raise SystemExit("peers_table: no truth passes in %s" % res)
    tools = {}
    for name in runs[0]["tools"]:
        cpus = [r["tools"][name]["cpu_s"] for r in runs if name in r["tools"]]
        rsss = [r["tools"][name]["rss_kb"] for r in runs if name in r["tools"]]
        procs = [r["tools"][name]["procs"] for r in runs if name in r["tools"]]
        m_cpu, m_rss = med(cpus), med(rsss)
        tools[name] = {"cpu_s": m_cpu, "rss_kb": m_rss, "procs": med(procs),
                       "cpu_spread": (max(cpus) - min(cpus)) / m_cpu * 100 if m_cpu else 0.0,
                       "rss_spread": (max(rsss) - min(rsss)) / m_rss * 100 if m_rss else 0.0}
    return tools, len(runs), med([r["procs"] for r in runs])


def err(v, t):
    return None if v is None or not t else (v - t) / t * 100.0


def errs_cell(es):
    es = [e for e in es if e is not None]
    if not es:
        return "-"
    worst = max(es, key=abs)
    return "%.1f / %+.1f" % (statistics.median([abs(e) for e in es]), worst)


def row_of(res, key, label, ident, truth):
    """the row of one collector: its passes against their own wait4 figures"""
    if os.path.exists(os.path.join(res, key + ".skip")):
        return None, open(os.path.join(res, key + ".skip")).read().strip()
    paths = [p for p in passes(res, key) if os.path.exists(p[:-5] + ".truth")]
    if not paths:
        return None, "no pass finished"
    runs = [(load(p), load(p[:-5] + ".truth")) for p in paths]
    per_tool, tools = {}, {}
    for name in truth:
        ces, res_, procs, rsss, truths = [], [], [], [], []
        for r, t in runs:
            if name in r["tools"] and name in t["tools"]:
                v, tv = r["tools"][name], t["tools"][name]
                ces.append(err(v["cpu_s"], tv["cpu_s"]))
                res_.append(err(v["rss_kb"], tv["rss_kb"]))
                procs.append(v["procs"])
                rsss.append(v["rss_kb"])
                truths.append(tv)
        if not truths:
            continue
        per_tool[name] = (med(ces), med(res_))
        tools[name] = {"procs": med(procs), "rss_kb": med(rsss),
                       "truth_procs": med([tv["procs"] for tv in truths]),
                       "truth_rss_kb": med([tv["rss_kb"] for tv in truths])}
    nprocs = med([t["procs"] for _r, t in runs])
    seen = med([r.get("procs") for r, _t in runs])
    if seen is None and key == "procexp":
        seen_cell = "-, %d at once" % max(r.get("procs_concurrent_max", 0) for r, _t in runs)
    else:
        seen_cell = "-" if seen is None else "%d / %d" % (seen, nprocs)
    spike = tools.get("spike")
    if spike is None:
        spike_cell = "missed (no process)"
    elif spike["rss_kb"] is None:
        spike_cell = "no RSS"
    else:
        spike_cell = ("seen" if spike["rss_kb"] >= 0.9 * spike["truth_rss_kb"] else "missed") + \
            " (%.0f MiB)" % (spike["rss_kb"] / 1024)
    short = tools.get("short")
    n_short = med([t["tools"].get("short", {}).get("procs") for _r, t in runs]) or 0
    if short is None:
        short_cell = "0 / %d" % n_short
    elif short["procs"] is None:
        short_cell = "- (CPU %s%%)" % fnum(per_tool["short"][0], "%+.0f")
    else:
        short_cell = "%d / %d" % (short["procs"], n_short)
    cpu_e = [c for c, _m in per_tool.values()]
    rss_e = [m for _c, m in per_tool.values()]
    cpu_cell, rss_cell = errs_cell(cpu_e), errs_cell(rss_e)
    steps = [(r["step"], t) for r, t in runs if "step" in r]
    if steps:
        # one figure per step: its CPU against every tool's, its MaxRSS
        # against the largest process (the spike)
        cpu_cell = "step total %s" % fnum(med([err(s["cpu_s"], sum(v["cpu_s"] for v in t["tools"].values()))
                                              for s, t in steps]), "%+.1f")
        peak = med([s["rss_kb"] for s, _t in steps])
        top = med([max(v["rss_kb"] for v in t["tools"].values()) for _s, t in steps])
        rss_cell = "step max %s" % fnum(err(peak, top), "%+.1f")
        spike_cell = ("seen" if peak and peak >= 0.9 * top else "missed") + " (%s MiB)" % fnum(
            None if peak is None else peak / 1024, "%.0f")
        short_cell = "-"
    ratios = [float(open(p[:-5] + ".wall").read()) / float(open(p[:-5] + ".base").read())
              for p in passes(res, key) if os.path.exists(p[:-5] + ".base") and os.path.exists(p[:-5] + ".wall")]
    costs = [open(p[:-5] + ".cost").read().split() for p in passes(res, key) if os.path.exists(p[:-5] + ".cost")]
    ratio_cell = "%.3f (%.3f-%.3f)" % (med(ratios), min(ratios), max(ratios)) if ratios else "-"
    cpu_cost = med([float(c[0]) for c in costs if c and c[0] != "-"])
    hwm = med([float(c[1]) for c in costs if len(c) > 1 and c[1] != "-"])
    cells = [label, seen_cell, "%d / %d" % (len(tools), len(truth)), cpu_cell, rss_cell,
             spike_cell, short_cell, ident, ratio_cell, fnum(cpu_cost), fnum(None if hwm is None else hwm / 1024, "%.1f")]
    return (cells, per_tool), None


def main():
    res = sys.argv[1]
    truth, ntruth, _nprocs = truth_of(res)
    head = ["collector", "processes seen", "tools named (any pass)", "CPU error % median / worst",
            "peak RSS error % median / worst", "300 MiB spike, 200 ms", "2 ms processes seen",
            "identity", "wall ratio median (min-max)", "own CPU s", "own peak RSS MiB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes, details = [], []
    for key, label, ident, lacks in COLLECTORS:
        r, why = row_of(res, key, label, ident, truth)
        if r is None:
            lines.append("| %s | not run: %s |%s" % (label, why, " |" * (len(head) - 2)))
            continue
        cells, per_tool = r
        lines.append("| " + " | ".join(cells) + " |")
        if lacks != "-":
            notes.append("- %s: %s." % (label, lacks))
        details.append("%-42s %s" % (label, "  ".join("%s %s/%s" % (n, fnum(c, "%+.1f"), fnum(m, "%+.1f"))
                                                        for n, (c, m) in sorted(per_tool.items()))))
    spread = ", ".join("%s %.1f/%.1f" % (n, t["cpu_spread"], t["rss_spread"]) for n, t in sorted(truth.items()))
    truth_lines = ["Ground truth (wait4 of every process, median of %d passes; per tool CPU s / peak RSS MiB): %s" %
                   (ntruth, ", ".join("%s %.3f/%.1f" % (n, t["cpu_s"], t["rss_kb"] / 1024) for n, t in sorted(truth.items()))),
                   "Its own spread between those passes, (max-min)/median %% CPU/RSS: %s" % spread,
                   "Errors are against the wait4 figures of the same pass (every pass records them)."]
    text = "\n".join(lines + [""] + truth_lines + ["", "Per tool, CPU/RSS error %:"] +
                     ["    " + d for d in details] + ["", "What each has that tracer lacks:"] + notes)
    print(text)
    if len(sys.argv) > 2:
        meta = load(os.path.join(res, "meta.json"))
        section = "\n".join([
            "<!-- peers: begin (written by bench/peers.sh; edit the text around it) -->",
            "", "%s, %s, %d cores, %s, kernel %s, load average %s at the start and %s at the end; `%s`:" %
            (meta["date"], meta["machine"], meta["cores"], meta["mem"], meta["kernel"], meta["load_start"],
             meta["load_end"], meta["command"]), "", text, "", "<!-- peers: end -->"])
        doc = open(sys.argv[2]).read()
        pat = re.compile(r"<!-- peers: begin.*?<!-- peers: end -->", re.S)
        doc = pat.sub(lambda _m: section, doc) if pat.search(doc) else doc.rstrip("\n") + "\n\n" + section + "\n"
        with open(sys.argv[2], "w") as f:
            f.write(doc)


if __name__ == "__main__":
    main()
