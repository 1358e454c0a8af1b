#!/usr/bin/env python3
"""peers_collect.py KIND ARGS... - read what one collector recorded in one
pass of the peers benchmark (bench/peers.sh) and print it in one shape:
{"tools": {TOOL: {"cpu_s", "rss_kb", "procs"}}, "procs": N}, where TOOL is
the workload's tool (the process name without its "pk_" prefix) and procs
is the number of the workload's processes the collector saw (null when it
cannot count them).  A value a collector does not give is null.  KINDs:
  truth FILE                  peers_wait's wait4 lines (name pid cpu_us maxrss_kb)
  tracer NDJSON JOBFILE MAP   tracerd's summary of the job; MAP is JSON
                              {executable's name: TOOL}
  psutil OUT                  peers_psutil.py's output
  pidstat OUT                 `pidstat -u -r -d -h -p ALL 1` output
  prom DIR                    the Prometheus answers saved by bench/peers.sh
  acct FILE ROOTPID           BSD process accounting (struct acct_v3), the
                              processes below ROOTPID
  snakemake DIR               the `benchmark:` files of the Snakefile's rules
  selftest                    check the decoders on known values
  slurm SACCT                 `sacct -n -P --format=JobID,State,TotalCPU,MaxRSS`
                              of the job: one figure per step, no tools"""
import glob
import json
import math
import os
import struct
import sys

PREFIX = "pk_"


def tool_of(name):
    return name[len(PREFIX):] if name and name.startswith(PREFIX) else None


def fold(rows):
    """rows of (tool, cpu_s, rss_kb): CPU summed, RSS the largest"""
    tools = {}
    for tool, cpu, rss in rows:
        t = tools.setdefault(tool, {"cpu_s": None, "rss_kb": None, "procs": 0})
        t["procs"] += 1
        if cpu is not None:
            t["cpu_s"] = (t["cpu_s"] or 0.0) + cpu
        if rss is not None:
            t["rss_kb"] = max(t["rss_kb"] or 0, rss)
    return tools


def read_truth(path):
    rows = []
    with open(path) as f:
        for line in f:
            name, _pid, cpu_us, rss_kb = line.rstrip("\n").split("\t")
            tool = tool_of(name)
            if tool:
                rows.append((tool, int(cpu_us) / 1e6, int(rss_kb)))
    tools = fold(rows)
    return {"tools": tools, "procs": sum(t["procs"] for t in tools.values())}


def read_tracer(ndjson, jobfile, mapfile):
    uid = open(jobfile).read().strip()
    names = json.load(open(mapfile))
    summary = None
    with open(ndjson) as f:
        for line in f:
            if line.strip():
                s = json.loads(line)
                if s.get("job") == uid:
                    summary = s
    if summary is None:
        raise SystemExit("tracer: no summary of job %s in %s" % (uid, ndjson))
    tools = {}
    for t in summary.get("tools", []):
        cands = [os.path.basename(t.get("path") or ""), os.path.basename(t.get("interpreter") or ""),
                 (t.get("tool") or "").split(" ")[0]]
        tool = next((names[c] for c in cands if c in names), None)
        if tool is None:
            continue
        e = tools.setdefault(tool, {"cpu_s": 0.0, "rss_kb": 0, "procs": 0})
        e["cpu_s"] += t.get("cpu_s", 0.0)
        e["rss_kb"] = max(e["rss_kb"], t.get("maxrss_bytes", 0) // 1024)
        e["procs"] += t.get("processes", 0)
    return {"tools": tools, "procs": sum(t["procs"] for t in tools.values()),
            "drops": summary.get("drops", {}).get("events")}


def read_psutil(path):
    d = json.load(open(path))
    tools = fold((tool_of(p["name"]), p["cpu_s"], p["rss_kb"]) for p in d["procs"] if tool_of(p["name"]))
    return {"tools": tools, "procs": sum(t["procs"] for t in tools.values()), "self": d["self"]}


def read_pidstat(path):
    """one line per process and second: CPU is %usr+%system over 1 s"""
    cols, per_pid = None, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if line.startswith("#"):
                cols = {c: i - 1 for i, c in enumerate(w) if i}
                continue
            if not cols or len(w) < len(cols):
                continue
            tool = tool_of(w[cols["Command"]])
            if not tool:
                continue
            p = per_pid.setdefault(w[cols["PID"]], [tool, 0.0, 0])
            p[1] += (float(w[cols["%usr"]]) + float(w[cols["%system"]])) / 100.0
            p[2] = max(p[2], int(w[cols["RSS"]]))
    tools = fold(per_pid.values())
    return {"tools": tools, "procs": sum(t["procs"] for t in tools.values())}


def read_prom(d):
    """instant answers of max_over_time over the pass: a counter's largest
    value is its last; resident memory is the group's sum at a scrape"""
    def series(name):
        out = {}
        for r in json.load(open(os.path.join(d, name)))["data"]["result"]:
            tool = tool_of(r["metric"].get("groupname"))
            if tool:
                out[tool] = out.get(tool, 0.0) + float(r["value"][1])
        return out
    cpu, rss, nproc = series("cpu.json"), series("rss.json"), series("procs.json")
    tools = {t: {"cpu_s": cpu.get(t), "rss_kb": int(rss[t] / 1024) if t in rss else None,
                 "procs": int(nproc.get(t, 0))} for t in set(cpu) | set(rss)}
    return {"tools": tools, "procs": None, "procs_concurrent_max": sum(t["procs"] for t in tools.values())}


def comp_t(v):
    """the kernel's 13-bit mantissa, 3-bit base-8 exponent encoding"""
    return (v & 0x1fff) << (3 * ((v >> 13) & 7))


ACCT_V3 = struct.Struct("<BBHIIIIIIf8H16s")


def read_acct(path, rootpid):
    """struct acct_v3 (64 bytes, ac_version 3): times in AHZ (100) ticks,
    ac_mem is the virtual size at exit in KiB, not a resident size"""
    recs = []
    data = open(path, "rb").read()
    for off in range(0, len(data) - ACCT_V3.size + 1, ACCT_V3.size):
        f = ACCT_V3.unpack_from(data, off)
        if f[1] & 0x0f != 3:
            raise SystemExit("acct: record at %d is version %d, not 3" % (off, f[1] & 0x0f))
        pid, ppid = f[6], f[7]
        name = f[18].split(b"\0")[0].decode(errors="replace")
        recs.append((pid, ppid, name, (comp_t(f[10]) + comp_t(f[11])) / 100.0))
    parent = {r[0]: r[1] for r in recs}

    def below_root(pid):
        for _ in range(64):
            if pid == rootpid:
                return True
            if pid not in parent:
                return False
            pid = parent[pid]
        return False
    tools = fold((tool_of(n), cpu, None) for pid, _pp, n, cpu in recs if tool_of(n) and below_root(pid))
    return {"tools": tools, "procs": sum(t["procs"] for t in tools.values())}


def read_snakemake(d):
    """one TSV per rule, named TOOL_STEP.tsv: max_rss in MB, cpu_time in s"""
    rows = []
    for path in sorted(glob.glob(os.path.join(d, "*.tsv"))):
        tool = os.path.basename(path).split("_")[0]
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            vals = dict(zip(head, f.readline().rstrip("\n").split("\t")))

        def num(k):
            try:
                v = float(vals.get(k, "NA"))
            except ValueError:
                return None
            return None if math.isnan(v) else v
        rss = num("max_rss")
        rows.append((tool, num("cpu_time"), None if rss is None else int(rss * 1024)))
    tools = fold(rows)
    for t in tools.values():
        t["procs"] = None
    return {"tools": tools, "procs": None}


def slurm_secs(v):
    """TotalCPU: [DD-][HH:]MM:SS[.mmm]"""
    days, _, v = v.rpartition("-")
    parts = [float(p) for p in v.split(":")]
    secs = 0.0
    for p in parts:
        secs = secs * 60 + p
    return secs + (int(days) * 86400 if days else 0)


def slurm_kb(v):
    units = {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}
    if not v:
        return None
    return int(float(v[:-1]) * units[v[-1]]) if v[-1] in units else int(v) // 1024


def read_slurm(path):
    step = None
    with open(path) as f:
        for line in f:
            w = line.rstrip("\n").split("|")
            if len(w) >= 4 and w[0].endswith(".0"):
                step = {"cpu_s": slurm_secs(w[2]), "rss_kb": slurm_kb(w[3])}
    if step is None:
        raise SystemExit("slurm: no step .0 in %s" % path)
    return {"tools": {}, "procs": None, "step": step}


def selftest():
    """the decoders on values whose meaning is known; the bench runs this
    first, so that a wrong decoder stops it instead of skewing a row"""
    import tempfile
    assert comp_t(0) == 0 and comp_t(8191) == 8191 and comp_t((1 << 13) | 5000) == 40000
    assert comp_t((2 << 13) | 6281) == 6281 * 64
    assert slurm_secs("00:01.500") == 1.5 and slurm_secs("01:02:03") == 3723 and slurm_secs("1-00:00:01") == 86401
    assert slurm_kb("300M") == 307200 and slurm_kb("12K") == 12 and slurm_kb("") is None
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "pidstat")
        with open(p, "w") as f:
            f.write("# Time UID PID %usr %system %guest %wait %CPU CPU minflt/s majflt/s VSZ RSS %MEM "
                    "kB_rd/s kB_wr/s kB_ccwr/s iodelay Command\n")
            for rss in (100, 300):
                f.write("05:28:12 0 5493 26.00 6.00 0.00 66.00 32.00 0 7.00 0.00 308196 %d 0.06 "
                        "0.00 0.00 0.00 0 pk_spike\n" % rss)
            f.write("05:28:12 0 77 50.00 0.00 0.00 0.00 50.00 0 0.00 0.00 1 1 0.00 0.00 0.00 0.00 0 sort\n")
        r = read_pidstat(p)
        assert r["procs"] == 1 and r["tools"]["spike"]["rss_kb"] == 300, r
        assert abs(r["tools"]["spike"]["cpu_s"] - 0.64) < 1e-9, r
        p = os.path.join(d, "acct")
        rec = ACCT_V3.pack(0, 3, 0, 0, 0, 0, 11, 10, 0, 0.0, 40, (1 << 13) | 1000, 0, 0, 0, 0, 0, 0, b"pk_sort")
        other = ACCT_V3.pack(0, 3, 0, 0, 0, 0, 12, 1, 0, 0.0, 99, 0, 0, 0, 0, 0, 0, 0, b"pk_sort")
        with open(p, "wb") as f:
            f.write(rec + other)
        r = read_acct(p, 10)
        assert r["procs"] == 1 and abs(r["tools"]["sort"]["cpu_s"] - 80.4) < 1e-9, r
    return {"selftest": "ok"}


def main():
    kinds = {"truth": read_truth, "tracer": read_tracer, "psutil": read_psutil, "pidstat": read_pidstat,
             "prom": read_prom, "acct": lambda p, r: read_acct(p, int(r)), "snakemake": read_snakemake, "slurm": read_slurm,
             "selftest": selftest}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds:
        raise SystemExit(__doc__)
    json.dump(kinds[sys.argv[1]](*sys.argv[2:]), sys.stdout)
    print()


if __name__ == "__main__":
    main()
