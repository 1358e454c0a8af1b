"""proofcheck.py - what the second-run proofs share (tests/tuneproof on
Slurm, tests/tuneaws on tracer-wrap jobs): the checks' output, the
steps tune sized by its fit, and the per-step table the closing lines
print.  Imported by both compare.py."""
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
