#!/usr/bin/env python3
"""jsum.py - read tracerd's NDJSON job summaries for the Slurm tests.

  jsum.py FILE count  [KEY=VALUE...]        number of matching summaries
  jsum.py FILE has N [KEY=VALUE...]         exit 0 when at least N match (for wait_until)
  jsum.py FILE get PATH [KEY=VALUE...]      a field of the one matching summary
  jsum.py FILE fields [KEY=VALUE...]        every field of it, "PATH<TAB>VALUE" a
                                            line, VALUE as get prints it (those
                                            with a tab or newline left out); and
                                            "@tools" as tools prints, "@tool/NAME/
                                            FIELD" as tool does
  jsum.py FILE values PATH [KEY=VALUE...]   that field of every match, sorted, one line
  jsum.py FILE tools [KEY=VALUE...]         its tool names, sorted, one line
  jsum.py FILE tool NAME FIELD [KEY=VALUE...]  a field of one of its tools
  jsum.py FILE flag ID [KEY=VALUE...]       the message of flag ID of the one matching summary
  jsum.py - open [KEY=VALUE...]             open jobs in `tracer status --json` (stdin)

KEY=VALUE filters on identity fields (job_id=12 step_id=batch ...); an
empty VALUE is refused (a job id the test failed to learn would match
nothing and make "no summary" checks pass).  A missing FILE is an error,
except for `has` (no summary yet).
PATH is dotted (identity.allocation.cpus, exit.code).  Strings print raw,
other values as JSON ("null" when absent).  A tool NAME matches the tool
name or the base name of its path.
"""
import json
import os
import sys


def load(path, missing_ok=False):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    out.append(json.loads(line))
                except ValueError as e:
                    print(f"jsum: invalid JSON line in {path}: {e}", file=sys.stderr)
                    sys.exit(3)
    except FileNotFoundError:
        if not missing_ok:
            print(f"jsum: no summary file {path}", file=sys.stderr)
            sys.exit(3)
    return out


def matches(summary, filters):
    ident = summary.get("identity", {})
    return all(str(ident.get(k, "")) == v for k, v in filters)


def select(path, filters, missing_ok=False):
    return [s for s in load(path, missing_ok) if matches(s, filters)]


def parse_filters(args):
    filters = []
    for a in args:
        if "=" not in a:
            print(f"jsum: bad filter '{a}' (want KEY=VALUE)", file=sys.stderr)
            sys.exit(2)
        k, v = a.split("=", 1)
        if not v:
            print(f"jsum: empty value in filter '{a}'", file=sys.stderr)
            sys.exit(2)
        filters.append((k, v))
    return filters


def one(path, filters):
    found = select(path, filters)
    if len(found) != 1:
        print(f"jsum: {len(found)} summaries match {filters}, want 1", file=sys.stderr)
        sys.exit(1)
    return found[0]


def dig(obj, dotted):
    for part in dotted.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return None
    return obj


def show(v):
    print(v if isinstance(v, str) else json.dumps(v))


def flatten(obj, prefix=""):
    """(dotted path, value) of every field of obj, objects and arrays too."""
    if prefix:
        yield prefix, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else k)


def tool_names(summary):
    names = set()
    for t in summary.get("tools", []):
        names.add(t.get("tool", ""))
        if t.get("path"):
            names.add(os.path.basename(t["path"]))
    return names


def find_tool(summary, name):
    for t in summary.get("tools", []):
        if t.get("tool") == name or os.path.basename(t.get("path", "")) == name:
            return t
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, cmd, rest = argv[1], argv[2], argv[3:]
    if cmd == "open":
        filters = parse_filters(rest)
        try:
            jobs = json.load(sys.stdin)["jobs"]["open_jobs"]
        except (ValueError, KeyError, TypeError) as e:
            print(f"jsum: no open_jobs in tracer status --json: {e!r}", file=sys.stderr)
            return 3
        print(len([j for j in jobs if matches(j, filters)]))
    elif cmd == "count":
        print(len(select(path, parse_filters(rest))))
    elif cmd == "has":
        n, filters = int(rest[0]), parse_filters(rest[1:])
        found = len(select(path, filters, missing_ok=True))
        print(f"{found} of {n} summaries matching {filters}")
        return 0 if found >= n else 1
    elif cmd == "get":
        show(dig(one(path, parse_filters(rest[1:])), rest[0]))
    elif cmd == "fields":
        s = one(path, parse_filters(rest))
        for k, v in flatten(s):
            text = v if isinstance(v, str) else json.dumps(v)
            if "\t" not in text and "\n" not in text and "\t" not in k:
                print(f"{k}\t{text}")
        print("@tools\t" + " ".join(sorted(n for n in tool_names(s) if n)))
        for n in sorted(n for n in tool_names(s) if n and "/" not in n and "\t" not in n):
            t = find_tool(s, n)
            for f, v in t.items():
                text = v if isinstance(v, str) else json.dumps(v)
                if "\t" not in text and "\n" not in text and "/" not in f:
                    print(f"@tool/{n}/{f}\t{text}")
    elif cmd == "values":
        vals = [dig(s, rest[0]) for s in select(path, parse_filters(rest[1:]))]
        print(" ".join(sorted(v if isinstance(v, str) else json.dumps(v) for v in vals)))
    elif cmd == "tools":
        print(" ".join(sorted(n for n in tool_names(one(path, parse_filters(rest))) if n)))
    elif cmd == "tool":
        t = find_tool(one(path, parse_filters(rest[2:])), rest[0])
        show(None if t is None else t.get(rest[1]))
    elif cmd == "flag":
        s = one(path, parse_filters(rest[1:]))
        msgs = [f.get("message") for f in s.get("flags") or [] if f.get("id") == rest[0]]
        show(msgs[0] if msgs else None)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
