#!/usr/bin/env python3
"""readme.py README SHOW - README's sample of `tracer show` (the indented
block after the line "<!-- tracer show sample -->") has the structure of
SHOW, what tracer show printed for the demo job: the same line labels in
the same order (Run, Task, ..., NOTES, REQUEST NEXT TIME, the syntaxes,
the tool table's columns, "N more tools", "Process tree:").  Values,
notes' texts and the number of tool rows may differ.  Exit 1 showing
both structures."""
import re
import sys


def sample(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    i = lines.index("<!-- tracer show sample -->") + 1
    while i < len(lines) and not lines[i].startswith("    "):
        i += 1
    out = []
    while i < len(lines) and (lines[i].startswith("    ") or lines[i] == ""):
        out.append(lines[i][4:])
        i += 1
    while out and out[-1] == "":
        out.pop()
    return out


def structure(lines):
    """the labels, in order; one entry for each run of tool rows or notes"""
    out, in_tools = [], False
    for line in lines:
        if not line.strip():
            in_tools = False
            continue
        if line.startswith("TOOL "):
            out.append("columns: " + " ".join(re.split(r" {1,}(?=[A-Z])", line.strip())))
            in_tools = True
            continue
        if re.match(r"\d+ more tools ", line):
            out.append("N more tools")
            in_tools = False
            continue
        if line.startswith("Process tree: "):
            out.append("Process tree:")
            continue
        if in_tools:
            if out[-1] != "tool rows":
                out.append("tool rows")
            continue
        if line.startswith("  * ") or re.match(r"  \d+ more notes", line):
            if out[-1] != "notes":
                out.append("notes")
            continue
        m = re.match(r"  (Slurm|Nextflow|Snakemake|AWS Batch) ", line)
        if m:
            out.append("request " + m.group(1))
            continue
        if line.startswith(" "):
            continue  # a wrapped line, a device, a note's continuation
        m = re.match(r"(NOTES|REQUEST NEXT TIME|[A-Z][A-Za-z/]*)\b", line)
        if m:
            out.append(m.group(1))
    return out


readme, show = structure(sample(sys.argv[1])), structure(open(sys.argv[2]).read().splitlines())
if readme != show:
    print("README.md's sample:", readme)
    print("tracer show:       ", show)
    sys.exit(1)
