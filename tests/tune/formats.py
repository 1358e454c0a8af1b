#!/usr/bin/env python3
"""formats.py JSON DIR - `tracer tune`'s files against its JSON: DIR holds
the outputs of one selection in every format (nextflow.config,
config.yaml, slurm.txt, aws.json, table.txt); each must say exactly what
the JSON's requests say, in that syntax (lines that are not comments are
compared whole).  aws.json is checked against the AWS Batch SubmitJob
request shape of botocore's service model (awsshape.py).  Prints one line per problem; exit 1 when any."""
import json
import math
import os
import re
import sys

import awsshape

MiB = 1024 * 1024
problems = []


def want(name, got, exp):
    if got != exp:
        problems.append("%s:\n  got:  %r\n  want: %r" % (name, got, exp))


def hms(s):
    v = math.ceil(s)
    return "%02d:%02d:%02d" % (v // 3600, (v // 60) % 60, v % 60)


def body(path, comment):
    return [l.rstrip("\n") for l in open(path) if not l.strip().startswith(comment)]


def nf_sel(name):
    out = ""
    for c in name:
        if c in ".^$|?*+()[]{}\\":
            out += "\\\\" + c
        elif c == "'":
            out += "\\'"
        else:
            out += c
    return "'" + out + "'"


def main():
    doc = json.load(open(sys.argv[1]))
    d = sys.argv[2]
    steps = doc["steps"]
    if not steps:
        problems.append("no steps in the JSON")
    # slurm
    exp = []
    for s in steps:
        r = s["request"]
        exp += ["", "#SBATCH --cpus-per-task=%d" % r["cpus"],
                "#SBATCH --mem=%dM" % (r["mem_bytes"] // MiB),
                "#SBATCH --time=%s" % hms(r["time_s"])]
    want("slurm.txt", body(os.path.join(d, "slurm.txt"), "# "), exp)
    # snakemake profile
    rules = [s for s in steps if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s["task"])]
    exp = ["set-threads:"] + ['  - "%s=%d"' % (s["task"], s["request"]["cpus"]) for s in rules]
    exp.append("set-resources:")
    for s in rules:
        exp += ['  - "%s:_cores=%d"' % (s["task"], s["request"]["cpus"]),
                '  - "%s:mem_mb=%d"' % (s["task"], math.ceil(s["request"]["mem_bytes"] / 1e6)),
                '  - "%s:runtime=%d"' % (s["task"], math.ceil(s["request"]["time_s"] / 60))]
    want("config.yaml", body(os.path.join(d, "config.yaml"), "#"), exp)
    # nextflow config
    exp = ["process {"]
    for s in steps:
        r = s["request"]
        mb = r["mem_bytes"] // MiB
        exp += ["    withName: %s {" % nf_sel(s["task"]), "        cpus = %d" % r["cpus"]]
        if r["retry_on_oom"]:
            exp += ["        memory = { %d.MB * task.attempt }" % mb,
                    "        errorStrategy = { task.exitStatus in 137..140 ? 'retry' : 'terminate' }",
                    "        maxRetries = 2"]
        else:
            exp.append("        memory = '%d MB'" % mb)
        exp += ["        time = '%dm'" % math.ceil(r["time_s"] / 60), "    }"]
    exp.append("}")
    want("nextflow.config", body(os.path.join(d, "nextflow.config"), "//"), exp)
    # table: the four syntaxes of each step
    table = open(os.path.join(d, "table.txt")).read()
    for s in steps:
        r = s["request"]
        mb = r["mem_bytes"] // MiB
        for line in ("  Slurm     --cpus-per-task=%d --mem=%dM --time=%s" % (r["cpus"], mb, hms(r["time_s"])),
                     "  Nextflow  cpus = %d; memory = '%d MB'; time = '%dm'" % (r["cpus"], mb, math.ceil(r["time_s"] / 60)),
                     "  Snakemake threads: %d; resources: mem_mb=%d, runtime=%d" % (r["cpus"], math.ceil(r["mem_bytes"] / 1e6), math.ceil(r["time_s"] / 60)),
                     '  AWS Batch [{"type":"VCPU","value":"%d"},{"type":"MEMORY","value":"%d"}]' % (r["cpus"], mb)):
            if line + "\n" not in table:
                problems.append("table.txt lacks the line %r" % line)
    # aws-batch: the values, and the shape botocore knows
    aws = json.load(open(os.path.join(d, "aws.json")))
    want("aws.json steps", [a["jobDefinition"] for a in aws], [s["task"] for s in steps])
    for a, s in zip(aws, steps):
        r = s["request"]
        want("aws.json %s" % s["task"], a["containerOverrides"]["resourceRequirements"],
             [{"type": "VCPU", "value": str(r["cpus"])},
              {"type": "MEMORY", "value": str(r["mem_bytes"] // MiB)}])
        problems.extend(awsshape.problems(a))
    for p in problems:
        print(p)
    return 1 if problems else 0


sys.exit(main())
