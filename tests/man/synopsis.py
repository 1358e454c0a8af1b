#!/usr/bin/env python3
"""synopsis.py PAGE TRACER - `tracer --help` and the SYNOPSIS of
tracer(1) name the same options for each command, and every option that
`tracer COMMAND --help` explains is in `tracer --help` for that command.
-h/--help and --version are left out (every command has them).  Exit 1
naming what differs."""
import re
import subprocess
import sys

page, tracer = sys.argv[1], sys.argv[2]
OPT = re.compile(r"(?<![\w-])(--?[a-zA-Z][a-z0-9-]*)")
SKIP = {"-h", "--help", "--version"}


def man_synopsis():
    """{command ("" for tracer itself): {options}} from the SYNOPSIS"""
    lines = open(page, encoding="utf-8").read().splitlines()
    start = lines.index(".Sh SYNOPSIS")
    out, cmd = {}, None
    for line in lines[start + 1:]:
        if line.startswith(".Sh "):
            break
        if line == ".Nm":
            cmd = ""
            continue
        m = re.match(r"\.Cm (\w+)$", line)
        if m and cmd == "":
            cmd = m.group(1)
            continue
        opts = out.setdefault(cmd, set())
        for f in re.findall(r"\bFl (-?[a-zA-Z][a-z0-9-]*)", line):
            opts.add("-" + f)
    return out


def help_commands(text):
    """{command: {options}} from tracer --help: the usage line, then a
    block per command (its name two spaces in, usage lines after it)"""
    out, cmd = {}, None
    for line in text.splitlines():
        if line.startswith("usage: tracer "):
            out[""] = set(OPT.findall(line.split("COMMAND")[0]))
            continue
        if line == "options:":
            break
        m = re.match(r"  (\w+)( |$)", line)
        if m:
            cmd = m.group(1)
        elif cmd is None or not line.lstrip().startswith("["):
            continue  # a description line
        out.setdefault(cmd, set()).update(OPT.findall(line))
    return out


text = subprocess.run([tracer, "--help"], capture_output=True, text=True, check=True).stdout
man, hlp = man_synopsis(), help_commands(text)
bad = []
for cmd in sorted(set(man) | set(hlp)):
    m, h = man.get(cmd, set()) - SKIP, hlp.get(cmd, set()) - SKIP
    name = f"tracer {cmd}".strip()
    if cmd not in hlp:
        bad.append(f"{name}: in the SYNOPSIS, not in tracer --help")
    elif cmd not in man:
        bad.append(f"{name}: in tracer --help, not in the SYNOPSIS")
    if m - h:
        bad.append(f"{name}: tracer --help lacks {' '.join(sorted(m - h))} (SYNOPSIS has them)")
    if h - m:
        bad.append(f"{name}: the SYNOPSIS lacks {' '.join(sorted(h - m))} (tracer --help has them)")
    if cmd:
        own = subprocess.run([tracer, cmd, "--help"], capture_output=True, text=True).stdout
        # "-u, --user USER": either form in tracer --help will do
        alias = {}
        for short, long_ in re.findall(r"(?m)^\s+(-\w), (--[\w-]+)", own):
            alias[short], alias[long_] = long_, short
        miss = {o for o in set(OPT.findall(own)) - SKIP - h if alias.get(o) not in h}
        if miss:
            bad.append(f"{name}: tracer --help lacks {' '.join(sorted(miss))} "
                       f"({name} --help has them)")
if not text.rstrip().endswith("."):
    bad.append("tracer --help does not end with a whole sentence")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
