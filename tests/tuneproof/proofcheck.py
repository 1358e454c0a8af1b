"""proofcheck.py - what the second-run proofs share (tests/tuneproof on
Slurm, tests/tuneaws on tracer-wrap jobs): the checks' output, the
steps tune sized by its fit, and the comparison of the allocations of
run 4 with runs 1-3 per step and for the pipeline, with its table.
Imported by both compare.py."""
import json

HALF = 0.5
MiB = 1 << 20


class Checks:
    def __init__(self):
        self.bad = 0

    def ok(self, cond, what, why=""):
        if cond:
            print(f"ok|{what}")
        else:
            self.bad += 1
            print(f"bad|{what}: {why}")


def mean(v):
    return sum(v) / len(v) if v else 0.0


def fitted_steps(path):
    """The steps tune sized by the fit of memory on input size."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return set()
    return {s.get("task") for s in doc.get("steps", [])
            if s.get("memory", {}).get("fit", {}).get("used")}


def print_table(head, table, legend, fitted):
    """The table, as "table|LINE" lines, columns aligned, then its legend."""
    widths = [max(len(str(row[i])) for row in [head] + table) for i in range(len(head))]
    for row in [head] + table:
        print("table|" + "  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
    print("table|" + legend + ("; * GB-s per input MiB (the fit)" if fitted else ""))


def compare_allocations(c, runs, steps, oom_step, sizes, fitted, unit, head, legend, digits=(1, 2)):
    """Per step, run 4 against the mean of runs 1-3: the allocated
    UNIT-seconds (cpus x seconds) and GB-seconds (memory x seconds, per
    input MiB when tune sized the step by its fit) each at most half,
    the OOM-killed step's memory raised instead; the pipeline's totals
    at most half too; then the table (head: its columns, legend: its
    last line).  runs[n][step]: "cpus", "mib", "secs" (the allocation
    and how long it was held), "done" (the job ended well), "summary",
    "size" (the allocation as the table shows it).  digits: the decimals
    of the table's UNIT-seconds and GB-seconds."""
    tot = {n: [0.0, 0.0] for n in runs}
    table = []
    cd, gd = digits
    for r in steps:
        if any(r not in runs[n] for n in runs):
            continue
        core = {n: runs[n][r]["cpus"] * runs[n][r]["secs"] for n in runs}
        gbs = {n: runs[n][r]["mib"] / 1024 * runs[n][r]["secs"] for n in runs}
        for n in runs:
            tot[n][0] += core[n]
            tot[n][1] += gbs[n]
        norm = r in fitted
        g = {n: gbs[n] / sizes[n - 1] * MiB if norm else gbs[n] for n in runs}
        core_ratio = core[4] / mean([core[n] for n in (1, 2, 3)])
        gb_ratio = g[4] / mean([g[n] for n in (1, 2, 3)])
        c.ok(core_ratio <= HALF, f"{r}: run 4's {unit}-seconds at most half of runs 1-3's",
             f"ratio {core_ratio:.2f} ({core})")
        if r == oom_step:
            before = max(runs[n][r]["mib"] for n in (1, 2, 3))
            c.ok(runs[4][r]["mib"] > before, f"{r}: the OOM-killed step's memory request rose",
                 f"{before:.0f} MiB before, {runs[4][r]['mib']:.0f} MiB after")
        else:
            c.ok(gb_ratio <= HALF, f"{r}: run 4's memory GB-seconds at most half of runs 1-3's"
                 + (" (per input MiB: fit)" if norm else ""), f"ratio {gb_ratio:.2f} ({gbs})")
        peak = max((runs[n][r]["summary"].get("memory", {}).get("peak_bytes", 0)
                    for n in runs if runs[n][r]["done"]), default=0) / MiB
        cpu = mean([runs[n][r]["summary"].get("totals", {}).get("cpu_s", 0) for n in runs])
        table.append((r, runs[1][r]["size"] + (" OOM" if r == oom_step else ""),
                      runs[4][r]["size"], f"{peak:.0f}M {cpu:.1f}s",
                      " ".join(f"{core[n]:.{cd}f}" for n in runs),
                      " ".join(f"{gbs[n]:.{gd}f}" for n in runs),
                      f"{core_ratio:.2f}", f"{gb_ratio:.2f}" + ("*" if norm else "")))
    if table:  # else no step ran in every run: checked and said before
        t_core = tot[4][0] / mean([tot[n][0] for n in (1, 2, 3)])
        t_gb = tot[4][1] / mean([tot[n][1] for n in (1, 2, 3)])
        c.ok(t_core <= HALF and t_gb <= HALF,
             f"the pipeline: run 4's {unit}-seconds and GB-seconds at most half of runs 1-3's",
             f"{unit}-s {t_core:.2f}, GB-s {t_gb:.2f}")
        table.append(("(total)", "", "", "", " ".join(f"{tot[n][0]:.{cd}f}" for n in runs),
                      " ".join(f"{tot[n][1]:.{gd}f}" for n in runs), f"{t_core:.2f}", f"{t_gb:.2f}"))
    print_table(head, table, legend, fitted)
