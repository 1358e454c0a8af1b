#!/usr/bin/env python3
"""awsshape.py - a request against the AWS Batch SubmitJob input shape of
botocore's service model (Debian's python3-botocore): member names,
types, enum values.  Used by tests/tune/formats.py and tests/tuneaws.

    awsshape.py FILE   FILE: `tracer tune --format aws-batch`'s array;
                       prints one line per problem, exit 1 when any
"""
import glob
import json
import sys

MODELS = "/usr/lib/python3/dist-packages/botocore/data/batch/*/service-2.json"


def problems(req):
    """The problems of req (a dict) as SubmitJob's input, [] when none."""
    found = []
    models = sorted(glob.glob(MODELS))
    if not models:
        return ["botocore's AWS Batch model is missing (python3-botocore)"]
    with open(models[-1], encoding="utf-8") as f:
        model = json.load(f)
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
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        reqs = json.load(f)
    found = ["the file is not a JSON array of requests"] if not isinstance(reqs, list) or not reqs \
        else [p for r in reqs for p in problems(r)]
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
