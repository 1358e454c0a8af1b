#!/usr/bin/env python3
"""check.py - assertions on job summaries for tests/wrapper/run.sh.

    check.py identity NDJSON KEY=VALUE...    identity fields (labels.X, allocation.X)
    check.py cpu NDJSON TOOL=TRUTH.json...   per-tool CPU within 5% of wait4 truth
    check.py tools NDJSON TOOL...            every tool listed
    check.py registrant NDJSON NAME          NAME is the job's registrant: in
                                             process_tree, marked, not a tool
    check.py field NDJSON PATH=VALUE...      any field of the summary (a.b.c)
    check.py analysis NDJSON BASIS FLAG...   the analysis tracerd adds: each
                                             FLAG with its evidence, a request
                                             in AWS Batch syntax, a cost on
                                             BASIS (total > 0 = used + unused)

NDJSON's last line is the summary checked.  Exits 1 with the reasons when
an assertion fails.
"""
import json
import sys


def last_summary(path):
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    if not lines:
        raise SystemExit(f"no summary in {path}")
    return json.loads(lines[-1])


def get(obj, path):
    # labels keys hold dots themselves: "labels.aws.ce_name"
    if path.startswith("labels."):
        return obj.get("labels", {}).get(path[len("labels."):])
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def same(value, want):
    if value is None:
        return want == "null"
    if isinstance(value, bool):
        return str(value).lower() == want
    if isinstance(value, (int, float)):
        try:
            return float(want) == float(value)
        except ValueError:
            return False
    return str(value) == want


def analysis(s, basis, flags):
    errors = []
    got = {f["id"]: f for f in s.get("flags") or []}
    for fid in flags:
        if fid not in got:
            errors.append(f"flag {fid} missing (flags: {sorted(got)})")
        elif not got[fid].get("evidence"):
            errors.append(f"flag {fid} without evidence: {got[fid]}")
    rec = s.get("recommendation") or {}
    batch = (rec.get("syntax") or {}).get("aws_batch", "")
    try:
        req = {r["type"]: r["value"] for r in json.loads("{" + batch + "}")["resourceRequirements"]}
        mem = int(req.get("MEMORY", 0)) * 1048576
        if basis == "fargate":  # a Fargate size that holds the recommendation
            if float(req.get("VCPU", 0)) < rec["cpus"] or mem < rec["mem_bytes"]:
                errors.append(f"aws_batch request {req} does not hold the recommendation {rec}")
        elif req.get("VCPU") != str(rec["cpus"]) or mem != rec["mem_bytes"]:
            errors.append(f"aws_batch request {req} is not the recommendation {rec}")
    except (ValueError, KeyError, TypeError) as e:
        errors.append(f"no AWS Batch request in the recommendation ({e!r}): {rec}")
    cost = s.get("cost") or {}
    if cost.get("basis") != basis:
        errors.append(f"cost basis {cost.get('basis')!r}, want {basis!r}: {cost}")
    elif not cost.get("total", 0) > 0 or abs(cost["used"] + cost["unused"] - cost["total"]) > 1e-12:
        errors.append(f"cost total not > 0 or not used + unused: {cost}")
    return errors


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    what, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not args:
        # nothing to check would always pass
        raise SystemExit(f"check.py {what}: nothing to check\n{__doc__}")
    s = last_summary(path)
    errors = []
    if what in ("identity", "field"):
        base = s["identity"] if what == "identity" else s
        for kv in args:
            key, want = kv.split("=", 1)
            got = get(base, key)
            if not same(got, want):
                errors.append(f"{key}: got {got!r}, want {want!r}")
    elif what == "cpu":
        tools = {t["tool"]: t for t in s["tools"]}
        for kv in args:
            name, truth_file = kv.split("=", 1)
            truth = json.load(open(truth_file))["cpu_s"]
            t = tools.get(name)
            if t is None:
                errors.append(f"tool {name} missing (tools: {sorted(tools)})")
                continue
            err = abs(t["cpu_s"] - truth) / truth
            print(f"{name}: {t['cpu_s']:.3f} s recorded, {truth:.3f} s by wait4 "
                  f"({100 * err:.2f}% off)")
            if err > 0.05:
                errors.append(f"{name}: {t['cpu_s']} s vs {truth} s: {100 * err:.1f}% off")
    elif what == "tools":
        tools = {t["tool"] for t in s["tools"]}
        for name in args:
            if name not in tools:
                errors.append(f"tool {name} missing (tools: {sorted(tools)})")
    elif what == "registrant":
        name = args[0]
        tools = {t["tool"] for t in s["tools"]}
        marked = [p for p in s["process_tree"] if p.get("registrant")]
        if name in tools:
            errors.append(f"registrant {name} listed as a tool: {sorted(tools)}")
        if len(marked) != 1 or marked[0]["tool"] != name:
            errors.append(f"want one registrant {name} in process_tree, got "
                          f"{[(p['tool'], p['pid']) for p in marked]}")
    elif what == "analysis":
        errors = analysis(s, args[0], args[1:])
    else:
        raise SystemExit(__doc__)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
