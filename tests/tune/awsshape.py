#!/usr/bin/env python3
"""awsshape.py - a request against the AWS Batch SubmitJob input shape of
botocore's service model (Debian's python3-botocore): member names,
types, enum values.  Used by tests/tune/formats.py and tests/tuneaws.

    awsshape.py FILE   FILE: `tracer tune --format aws-batch`'s array;
                       prints one line per problem, exit 1 when any
    awsshape.py --fargate FILE
                       the same, and every request is a task size that
                       Fargate runs (the VCPU/MEMORY pairs the model's
                       ResourceRequirement documentation lists)
    awsshape.py --fargate-summary FILE
                       each summary's recommendation.syntax.aws_batch in
                       the NDJSON FILE is such a size
"""
import glob
import json
import re
import sys

MODELS = "/usr/lib/python3/dist-packages/botocore/data/batch/*/service-2.json"


def load_model():
    models = sorted(glob.glob(MODELS))
    if not models:
        return None
    with open(models[-1], encoding="utf-8") as f:
        return json.load(f)


def fargate_sizes(model):
    """{vcpu: {memory MiB...}} from the documentation of the VCPU value in
    ResourceRequirement: "value = 0.25 MEMORY = 512, 1024, or 2048 ..."."""
    doc = re.sub(r"<[^>]+>", " ", model["shapes"]["ResourceRequirement"]["members"]["value"]
                 ["documentation"])
    doc = doc[doc.index('type="VCPU"'):]
    sizes = {}
    for v, mems in re.findall(r"value\s*=\s*([0-9.]+)\s+MEMORY\s*=\s*([0-9, or]+)", doc):
        sizes[v] = {int(m) for m in re.findall(r"[0-9]+", mems)}
    return sizes


def fargate_problems(reqs, where):
    """A request's resourceRequirements that is no Fargate size."""
    model = load_model()
    if not model:
        return ["botocore's AWS Batch model is missing (python3-botocore)"]
    sizes = fargate_sizes(model)
    if "16" not in sizes or 512 not in sizes.get("0.25", ()):
        return ["cannot read Fargate's sizes from botocore's model"]
    r = {x["type"]: x["value"] for x in reqs}
    if int(r.get("MEMORY", "0")) not in sizes.get(r.get("VCPU"), ()):
        return ["%s: VCPU %s, MEMORY %s is no Fargate size" % (where, r.get("VCPU"), r.get("MEMORY"))]
    return []


def problems(req):
    """The problems of req (a dict) as SubmitJob's input, [] when none."""
    found = []
    model = load_model()
    if not model:
        return ["botocore's AWS Batch model is missing (python3-botocore)"]
    shapes = model["shapes"]
    walk(shapes, shapes[model["operations"]["SubmitJob"]["input"]["shape"]], req,
         "SubmitJob", found)
    return found


def walk(shapes, shape, v, where, found):
    t = shape["type"]
    if t == "structure":
        if not isinstance(v, dict):
            found.append("%s: not an object" % where)
            return
        for k, x in v.items():
            if k not in shape["members"]:
                found.append("%s: no member %s" % (where, k))
                continue
            walk(shapes, shapes[shape["members"][k]["shape"]], x, where + "." + k, found)
    elif t == "list":
        if not isinstance(v, list):
            found.append("%s: not a list" % where)
            return
        for i, x in enumerate(v):
            walk(shapes, shapes[shape["member"]["shape"]], x, "%s[%d]" % (where, i), found)
    elif t == "string":
        if not isinstance(v, str):
            found.append("%s: not a string" % where)
        elif "enum" in shape and v not in shape["enum"]:
            found.append("%s: %r is none of %s" % (where, v, shape["enum"]))
    elif t in ("integer", "long"):
        if not isinstance(v, int) or isinstance(v, bool):
            found.append("%s: not an integer" % where)
    elif t == "boolean":
        if not isinstance(v, bool):
            found.append("%s: not a boolean" % where)
    else:
        found.append("%s: type %s not checked here" % (where, t))


def main(argv):
    mode = argv.pop(1) if len(argv) == 3 else ""
    if len(argv) != 2 or mode not in ("", "--fargate", "--fargate-summary"):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        if mode == "--fargate-summary":
            found, n = [], 0
            for line in f:
                if not line.strip():
                    continue
                s = json.loads(line)
                aws = s.get("recommendation", {}).get("syntax", {}).get("aws_batch")
                if aws is None:
                    continue
                n += 1
                found += fargate_problems(json.loads("{%s}" % aws)["resourceRequirements"],
                                          s.get("job", "?"))
            found += [] if n else ["no summary with an AWS Batch request"]
        else:
            reqs = json.load(f)
            found = ["the file is not a JSON array of requests"] if not isinstance(reqs, list) or not reqs \
                else [p for r in reqs for p in problems(r)]
            if mode == "--fargate":
                found += [p for r in reqs for p in fargate_problems(
                    r["containerOverrides"]["resourceRequirements"], r.get("jobDefinition", "?"))]
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
