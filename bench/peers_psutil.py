#!/usr/bin/env python3
"""peers_psutil.py INTERVAL_S OUT -- CMD... - /proc sampling the way
Nextflow's trace does it, for the peers benchmark (bench/peers.sh): run
CMD, and every INTERVAL_S look at its process tree with psutil; keep per
process its name, utime+stime at the last sight and the largest RSS seen.
OUT gets JSON: {"procs": [{pid, name, cpu_s, rss_kb}], "self": {cpu_s,
hwm_kb}, "rc"}; "self" is this sampler's own cost (getrusage of itself,
VmHWM), its children excluded."""
import json
import resource
import subprocess
import sys
import time

import psutil


def hwm_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def sample(root, seen):
    try:
        procs = [root] + root.children(recursive=True)
    except psutil.Error:
        return
    for p in procs:
        try:
            with p.oneshot():
                key = (p.pid, p.create_time())
                t = p.cpu_times()
                rss = p.memory_info().rss // 1024
                name = p.name()
        except psutil.Error:
            continue
        e = seen.setdefault(key, {"pid": p.pid, "name": name, "cpu_s": 0.0, "rss_kb": 0})
        e["name"] = name
        e["cpu_s"] = t.user + t.system
        e["rss_kb"] = max(e["rss_kb"], rss)


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: peers_psutil.py INTERVAL_S OUT -- CMD...")
    interval, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[4:]
    child = subprocess.Popen(cmd)
    root = psutil.Process(child.pid)
    seen = {}
    while child.poll() is None:
        sample(root, seen)
        try:
            child.wait(timeout=interval)
        except subprocess.TimeoutExpired:
            pass
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, "w") as f:
        json.dump({"procs": list(seen.values()), "rc": child.returncode,
                   "self": {"cpu_s": ru.ru_utime + ru.ru_stime, "hwm_kb": hwm_kb()}}, f)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
