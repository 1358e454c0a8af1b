#!/usr/bin/env python3
"""validate_summary.py - every job summary of NDJSON files against
docs/summary.schema.json (JSON Schema 2020-12), and every idle_host
record (a line with "record": "idle_host", the archive's other kind)
against docs/idle_host.schema.json.

usage: validate_summary.py [--min N] FILE...

Each non-empty line of each FILE must be valid UTF-8, strict JSON (no
NaN, no duplicate keys) and valid against the schema.  Prints one line
per file, the errors (file:line, where in the summary, what), and exits
1 when a summary is invalid or when fewer than N summaries (default 1)
were read in all: a check over nothing passes by accident.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit(f"validate_summary.py: {sys.executable} has no jsonschema module "
             "(Debian: apt-get install python3-jsonschema)")

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
SCHEMA = os.path.join(DOCS, "summary.schema.json")
IDLE_SCHEMA = os.path.join(DOCS, "idle_host.schema.json")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate keys {sorted(dup)}")
    return dict(pairs)


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


def where(path):
    return "/".join(str(p) for p in path) or "(top)"


def series_errors(s):
    """what JSON Schema cannot say of `timeseries`: the three arrays have
    `points` items each and the times never go backwards"""
    ts = s.get("timeseries")
    if not isinstance(ts, dict):
        return []
    n = ts.get("points")
    cols = [ts.get(k) for k in ("t_s", "cpu_cores", "mem_bytes")]
    if not all(isinstance(c, list) and len(c) == n for c in cols):
        return [f"timeseries: t_s, cpu_cores and mem_bytes must have {n} items each"]
    t = cols[0]
    if any(b < a for a, b in zip(t, t[1:])):
        return ["timeseries: t_s goes backwards"]
    return []


def check_file(validator, path, idle_validator=None):
    """(summaries read, error lines); idle_host records are checked
    against their own schema and not counted as summaries"""
    n, errors = 0, []
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                s = json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates,
                               parse_constant=no_constant)
            except (UnicodeDecodeError, ValueError) as e:
                n += 1
                errors.append(f"{path}:{lineno}: not a JSON summary: {e}")
                continue
            if isinstance(s, dict) and "record" in s and idle_validator:
                for e in idle_validator.iter_errors(s):
                    errors.append(f"{path}:{lineno}: idle_host record: at {where(e.path)}: "
                                  f"{e.message[:300]}")
                continue
            n += 1
            for e in sorted(validator.iter_errors(s), key=lambda e: list(e.path)):
                errors.append(f"{path}:{lineno}: job {s.get('job')!r}: at {where(e.path)}: "
                              f"{e.message[:300]}")
            for e in series_errors(s):
                errors.append(f"{path}:{lineno}: job {s.get('job')!r}: {e}")
    return n, errors


def main(argv):
    args, want = argv[1:], 1
    if len(args) >= 2 and args[0] == "--min":
        want, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    with open(IDLE_SCHEMA) as f:
        idle_schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(idle_schema)
    idle_validator = jsonschema.Draft202012Validator(idle_schema)
    total, bad = 0, 0
    for path in args:
        n, errors = check_file(validator, path, idle_validator)
        total += n
        bad += len(errors)
        print(f"{path}: {n} summaries, {len(errors)} error(s)")
        for e in errors[:50]:
            print("  " + e)
    if total < want:
        print(f"only {total} summaries read, want at least {want}")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
