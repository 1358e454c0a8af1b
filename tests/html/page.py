#!/usr/bin/env python3
"""page.py - checks of the HTML report as a browser saw it, for run.sh.

  page.py dom DOMFILE [--title T] [--lane NAME]... [--tool NAME]...
          [--flag ID]... [--text S]... [--absent-id ID]... [--absent-tag TAG]...
          [--min-bars N] [--charts N] [--snippets N] [--scripts N]
      the DOM chromium dumped (--dump-dom) has these lanes (timeline
      <g data-lane>), tools (<tr data-tool>), notes (<div data-flag>),
      texts (in the page's text, as text), no element with these ids and
      no element of these tags, at least N process bars (<rect data-p>),
      N charts (<figure id="chart-...">), N snippets (<pre data-syntax>)
      and exactly N <script> elements
  page.py png PNGFILE
      the screenshot is not blank: many colours, much non-white
  page.py net NETLOG STDERR PAGE_URL
      nothing left the page: no request in chromium's NetLog made from
      the page (a network isolation key of file://) but the page itself,
      and no resource refused or failed in the console log
  page.py synth TEMPLATE OUT N
      a summary of N processes (60 tools) from a real one (TEMPLATE)
"""
import json
import random
import re
import struct
import sys
import zlib
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.ids, self.lanes, self.tools, self.flags = [], set(), set(), set(), set()
        self.bars = self.charts = self.snippets = 0
        self.text, self.title, self._in_title, self._title_seen = [], "", False, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "g" and "data-lane" in a:
            self.lanes.add(a["data-lane"])
        if tag == "tr" and "data-tool" in a:
            self.tools.add(a["data-tool"])
        if "data-flag" in a:
            self.flags.add(a["data-flag"])
        if tag == "rect" and "data-p" in a:
            self.bars += 1
        if tag == "figure" and a.get("id", "").startswith("chart-"):
            self.charts += 1
        if tag == "pre" and "data-syntax" in a:
            self.snippets += 1
        if tag == "title" and not self._title_seen:
            self._in_title = self._title_seen = True

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        self.text.append(data)


def opts(argv, names):
    out = {n: [] for n in names}
    i = 0
    while i < len(argv):
        if argv[i] not in out:
            sys.exit(f"unknown option {argv[i]}")
        out[argv[i]].append(argv[i + 1])
        i += 2
    return out


def check_dom(path, argv):
    o = opts(argv, ["--title", "--lane", "--tool", "--flag", "--text", "--absent-id",
                    "--absent-tag", "--min-bars", "--charts", "--snippets", "--scripts"])
    d = Dom()
    d.feed(open(path, encoding="utf-8", errors="strict").read())
    text = "".join(d.text)
    bad = []
    for t in o["--title"]:
        if d.title != t:
            bad.append(f"title is {d.title!r}, want {t!r}")
    for name, have, key in (("lane", d.lanes, "--lane"), ("tool", d.tools, "--tool"),
                            ("note", d.flags, "--flag")):
        for want in o[key]:
            if want not in have:
                bad.append(f"no {name} {want!r} (have {sorted(have)[:30]})")
    for s in o["--text"]:
        if s not in text:
            bad.append(f"text {s!r} not shown")
    for i in o["--absent-id"]:
        if i in d.ids:
            bad.append(f"an element with id {i!r} exists")
    for t in o["--absent-tag"]:
        if t in d.tags:
            bad.append(f"a <{t}> element exists")
    for n in o["--min-bars"]:
        if d.bars < int(n):
            bad.append(f"{d.bars} process bars, want at least {n}")
    for n in o["--charts"]:
        if d.charts != int(n):
            bad.append(f"{d.charts} charts, want {n}")
    for n in o["--scripts"]:
        if d.tags.count("script") != int(n):
            bad.append(f"{d.tags.count('script')} <script> elements, want {n}")
    for n in o["--snippets"]:
        if d.snippets < int(n):
            bad.append(f"{d.snippets} snippets, want at least {n}")
    print(f"{path}: title {d.title!r}, {len(d.lanes)} lanes, {len(d.tools)} tools, "
          f"{len(d.flags)} notes, {d.bars} bars, {d.charts} charts, {d.snippets} snippets")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB(A) PNG"""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    if depth != 8 or ctype not in (2, 6):
        raise ValueError(f"PNG colour type {ctype} depth {depth} not handled")
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def check_png(path):
    w, h, rows, bpp = png_pixels(path)
    colours, ink, n = set(), 0, 0
    for y in range(0, h, 3):
        r = rows[y]
        for x in range(0, w, 3):
            px = r[x * bpp:x * bpp + 3]
            colours.add(px)
            n += 1
            ink += px != b"\xff\xff\xff"
    share = ink / max(n, 1)
    print(f"{path}: {w}x{h}, {len(colours)} colours, {share:.1%} of the pixels not white")
    return 0 if len(colours) >= 32 and share >= 0.03 else 1


def check_net(netlog, stderr, page):
    log = json.load(open(netlog))
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    from_page = set()
    for e in log["events"]:
        p = e.get("params", {})
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "file://" in str(
                p.get("network_isolation_key", "")) and p.get("url") != page:
            from_page.add(p.get("url"))
    refused = [l.strip()[:300] for l in open(stderr, errors="replace")
               if re.search(r"Content Security Policy|Failed to load|net::ERR_|Refused to", l)]
    print(f"{netlog}: {len(from_page)} request(s) from the page, {len(refused)} refused/failed load(s)")
    for u in sorted(from_page)[:10]:
        print("  request: " + u)
    for l in refused[:10]:
        print("  console: " + l)
    return 1 if from_page or refused else 0


def synth(template, out, n):
    random.seed(12)
    s = json.loads(open(template).readline())
    wall = 3600.0
    t0 = int(s["start_ns"])
    iso = lambda ns: __import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(ns // 10**9)) + ".%03dZ" % (ns // 10**6 % 1000)
    tools = [f"tool{k:02d}" for k in range(60)]
    agg = {t: {"tool": t, "path": "/opt/bin/" + t, "processes": 0, "cpu_s": 0.0, "user_s": 0.0,
               "sys_s": 0.0, "peak_rss_bytes": 0, "maxrss_bytes": 0, "rchar": 0, "wchar": 0,
               "read_bytes": 0, "write_bytes": 0, "first": None, "last": 0, "oom_kills": 0}
           for t in tools}
    tree = []
    # the fields the page shows (a lean entry: 100,000 of them stay small)
    base = {"code": 0, "signal": None}
    for i in range(n):
        t = tools[min(int(random.expovariate(0.15)), 59)]
        st = t0 + int(random.uniform(0, wall - 5) * 1e9)
        dur = random.expovariate(1 / 2.0) + 0.001
        en = min(st + int(dur * 1e9), t0 + int(wall * 1e9))
        cpu = round(dur * random.uniform(0.05, 1.0), 6)
        rss = random.randint(1 << 20, 512 << 20)
        a = agg[t]
        a["processes"] += 1
        a["cpu_s"] += cpu
        a["peak_rss_bytes"] = max(a["peak_rss_bytes"], rss)
        a["rchar"] += rss // 3
        a["wchar"] += rss // 5
        a["first"] = st if a["first"] is None else min(a["first"], st)
        a["last"] = max(a["last"], en)
        argv = ["/opt/bin/" + t, "--input", f"/scratch/sample_{i:06d}/reads_R1.fastq.gz",
                "--output", f"/scratch/sample_{i:06d}/out.bam", "--threads", "1"]
        p = dict(base)
        p.update(pid=100000 + i, ppid=100000 + i // 10 if i else 99999, tool=t, comm=t[:15],
                 exe="/opt/bin/" + t, cmdline=" ".join(argv), start=iso(st), end=iso(en),
                 wall_s=round((en - st) / 1e9, 6), cpu_s=cpu, user_s=cpu, sys_s=0.0,
                 peak_rss_bytes=rss, maxrss_bytes=rss, rchar=rss // 3, wchar=rss // 5)
        tree.append(p)
    out_tools = []
    for a in sorted(agg.values(), key=lambda a: -a["cpu_s"]):
        if not a["processes"]:
            continue
        first, last = a.pop("first"), a.pop("last")
        a.update(first_start=iso(first), last_end=iso(last), wall_s=(last - first) / 1e9,
                 exit_codes=[{"code": 0, "signal": None, "count": a["processes"]}],
                 cpu_efficiency=a["cpu_s"] / (wall * 2), cpu_efficiency_span=a["cpu_s"] / max((last - first) / 1e9, 1e-6))
        out_tools.append(a)
    pts = 2048
    s.update(job="synthetic-100k", wall_s=wall, end_ns=str(t0 + int(wall * 1e9)), end=iso(t0 + int(wall * 1e9)),
             tools=out_tools, process_tree=tree,
             timeseries={"interval_s": wall / pts, "points": pts,
                         "t_s": [round((k + 1) * wall / pts, 3) for k in range(pts)],
                         "cpu_cores": [round(1 + abs(((k % 400) - 200) / 200), 3) for k in range(pts)],
                         "mem_bytes": [(1 << 30) + (k % 300) * (1 << 22) for k in range(pts)]})
    s["identity"]["task_name"] = "synthetic-100k"
    s["processes"].update(total=n, exited=n, kept=n, not_kept=0)
    s["totals"]["cpu_s"] = sum(a["cpu_s"] for a in out_tools)
    with open(out, "w") as f:
        f.write(json.dumps(s) + "\n")
    return 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "dom":
        return check_dom(argv[2], argv[3:])
    if cmd == "png":
        return check_png(argv[2])
    if cmd == "net":
        return check_net(argv[2], argv[3], argv[4])
    if cmd == "synth":
        return synth(argv[2], argv[3], int(argv[4]))
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
