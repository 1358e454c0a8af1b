#!/usr/bin/env python3
"""check.py - assertions on the summaries of the containers suite.

usage: check.py SUMMARY_FILE JOB_ID CHECK [ARGS...]
JOB_ID is a job uid, or @FILE to read it from FILE (tracer run
--job-file).  Exit 0 when the check holds, 1 with the reason.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import summaries  # noqa: E402


def load(path, ref):
    if ref == "*":
        # the last summary of the file (a file of one job)
        with open(path, "rb") as f:
            lines = f.read().splitlines()
        if not lines:
            sys.exit(f"no summary in {path}")
        return json.loads(lines[-1].decode("utf-8"))
    return summaries.load(path, ref)


def tools(s):
    return [t["tool"] for t in s.get("tools", [])]


def procs(s):
    return s.get("process_tree", [])


def main():
    path, ref, what, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    s = load(path, ref)
    if what == "tool":
        # tool NAME PATH: a tool of that name whose executable is PATH ("-": any)
        name, exe = args
        for t in s.get("tools", []):
            if t["tool"] == name:
                if exe != "-" and t.get("path") != exe:
                    sys.exit(f"tool {name}: path {t.get('path')!r}, want {exe!r}")
                return
        sys.exit(f"no tool {name!r}; tools: {tools(s)}")
    if what == "no-tool":
        if args[0] in tools(s):
            sys.exit(f"tool {args[0]!r} is in the job: {tools(s)}")
        return
    if what == "container":
        # container RUNTIME ID_PREFIX [IMAGE]
        c = s.get("container")
        if not c:
            sys.exit(f"no container object; keys: {sorted(s)}")
        if c.get("runtime") != args[0]:
            sys.exit(f"container runtime {c.get('runtime')!r}, want {args[0]!r}: {c}")
        if not c.get("id", "").startswith(args[1]):
            sys.exit(f"container id {c.get('id')!r}, want {args[1]!r}: {c}")
        if len(args) > 2 and c.get("image") != args[2]:
            sys.exit(f"container image {c.get('image')!r}, want {args[2]!r}: {c}")
        return
    if what == "container-named":
        # container-named NAME IMAGE: the job's container's name and image
        c = s.get("container") or {}
        if c.get("name") != args[0] or c.get("image") != args[1]:
            sys.exit(f"container name {c.get('name')!r} image {c.get('image')!r}, "
                     f"want {args[0]!r} {args[1]!r}: {c}")
        return
    if what == "pidns":
        # pidns TOOL yes|no: TOOL's processes do / do not say a pid namespace
        ps = [p for p in procs(s) if p.get("tool") == args[0]]
        if not ps:
            sys.exit(f"no process of tool {args[0]!r}: {tools(s)}")
        for p in ps:
            if ("pid_namespace" in p) != (args[1] == "yes"):
                sys.exit(f"{args[0]} pid {p.get('pid')}: pid_namespace {p.get('pid_namespace')!r}")
        c = s.get("container") or {}
        if args[1] == "yes" and c.get("pid_namespace") != ps[0]["pid_namespace"]:
            sys.exit(f"container pid_namespace {c.get('pid_namespace')!r}, "
                     f"process {ps[0]['pid_namespace']!r}")
        return
    if what == "containers":
        # containers N RUNTIME IMAGE...: N containers listed, all of RUNTIME,
        # with these images in order (the first is the job's `container`)
        n, runtime, images = int(args[0]), args[1], args[2:]
        cs = s.get("containers") or ([s["container"]] if s.get("container") else [])
        if len(cs) != n or (n > 1 and cs[0] != s.get("container")):
            sys.exit(f"{len(cs)} containers, want {n}: {cs}")
        if [c.get("runtime") for c in cs] != [runtime] * n or [c.get("image") for c in cs] != images:
            sys.exit(f"containers {[(c.get('runtime'), c.get('image')) for c in cs]}, "
                     f"want {runtime} {images}")
        if len({c["id"] for c in cs}) != n:
            sys.exit(f"container ids not distinct: {cs}")
        return
    if what == "in-container":
        # in-container TOOL IMAGE: every process of TOOL says the short id
        # of the container of that image, one that is not the job's first
        ps = [p for p in procs(s) if p.get("tool") == args[0]]
        want = [c["short_id"] for c in s.get("containers", [])[1:] if c.get("image") == args[1]]
        if not ps or len(want) != 1:
            sys.exit(f"no process of {args[0]!r} or no second container of image {args[1]!r}")
        for p in ps:
            if p.get("container") != want[0]:
                sys.exit(f"{args[0]} pid {p.get('pid')}: container {p.get('container')!r}, "
                         f"want {want[0]}")
        return
    if what == "no-container":
        # no-container TOOL: TOOL's processes ran on the host (no container
        # of their own, no pid namespace)
        ps = [p for p in procs(s) if p.get("tool") == args[0]]
        if not ps:
            sys.exit(f"no process of tool {args[0]!r}: {tools(s)}")
        for p in ps:
            if "container" in p or "pid_namespace" in p:
                sys.exit(f"{args[0]} pid {p.get('pid')} in a container: {p}")
        return
    if what == "registrant-pidns":
        # the registrant (in the container) says the container's pid namespace
        rs = [p for p in procs(s) if p.get("registrant")]
        c = s.get("container") or {}
        if len(rs) != 1 or not c.get("pid_namespace") or \
                rs[0].get("pid_namespace") != c.get("pid_namespace"):
            sys.exit(f"registrant {rs}, container pid_namespace {c.get('pid_namespace')!r}")
        return
    if what == "container-unnamed":
        # no name and no image: the runtime keeps them beside the environment
        c = s.get("container") or {}
        if not c or "name" in c or "image" in c or "image_id" in c:
            sys.exit(f"container named or absent: {c}")
        return
    if what == "container-counters":
        cg = (s.get("container") or {}).get("cgroup", {})
        if not cg.get("memory_peak_bytes") or "cpu_s" not in cg:
            sys.exit(f"container cgroup without counters: {cg}")
        return
    if what == "exit":
        ex = s.get("exit", {})
        if str(ex.get("code")) != args[0]:
            sys.exit(f"job exit {ex}, want code {args[0]}")
        return
    if what == "identity":
        # identity KEY VALUE (a field of the job's identity, as the summary names it)
        blob = json.dumps(s)
        if f'"{args[0]}": "{args[1]}"' not in blob and f'"{args[0]}": {args[1]}' not in blob:
            sys.exit(f"{args[0]}={args[1]} not in the summary: {blob[:2000]}")
        return
    if what == "joins":
        # joins FIELD MIN: docker_joins FIELD is at least MIN ("=N": exactly N)
        dj = s.get("docker_joins")
        if dj is None:
            sys.exit(f"no docker_joins; keys: {sorted(s)}")
        want = args[1]
        got = dj.get(args[0])
        ok = got == int(want[1:]) if want.startswith("=") else (got or 0) >= int(want)
        if not ok:
            sys.exit(f"docker_joins {args[0]} {got!r}, want {want}: {dj}")
        return
    if what == "own-container":
        # own-container CID OTHER_CID: the job has its own container CID or,
        # when its docker command was ambiguous, none; never OTHER_CID
        blob = json.dumps(s)
        if args[1] in blob:
            sys.exit(f"the other job's container {args[1][:12]} is in this job: "
                     f"{s.get('container')} {s.get('docker_joins')}")
        c = s.get("container") or {}
        dj = s.get("docker_joins") or {}
        if c.get("id") == args[0] and dj.get("joined") == 1:
            return
        if not c and dj.get("ambiguous") == 1:
            return
        sys.exit(f"neither its own container nor ambiguous: {c} {dj}")
    sys.exit(f"unknown check {what}")


if __name__ == "__main__":
    main()
