#!/usr/bin/env python3
"""flood.py SOCKET - (root) registrations from many uids, as a rootless
container's 65,536 uids would send them.  Each registration comes from its
own process with its own uid (no account needed), which stays alive so
that its job stays open.  First a burst of 150 at once, then 250 paced
(40 a second), then one registration as root.  Each uid is new to
tracerd, whose rate bucket is per uid (daemon/admission.h: 10/s after a
burst of 32, 1024 uids tracked): no registration here meets the rate
limit, which test_daemon_admission.c checks; the pace spares tracerd's
500 ms request deadline a second burst.  Prints one line:
  accepted=N refused_rate=N refused_limit=N timeout=N other=N root=ok|refused
"""
import os
import socket
import sys
import time

SOCK = sys.argv[1]
hold_r, hold_w = os.pipe()
res_r, res_w = os.pipe()
go_r, go_w = os.pipe()
children = []


def register(uid, wait_go=False):
    pid = os.fork()
    if pid:
        children.append(pid)
        return
    os.close(hold_w)
    os.close(res_r)
    if uid:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    if wait_go:  # the burst: everyone at once
        os.read(go_r, 1)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    try:
        s.connect(SOCK)
        s.sendall(b'{"op":"register","v":1,"identity":{"task_name":"flood"},"stays":true}\n')
        reply = s.makefile().readline().strip()
    except OSError as e:
        reply = "error " + str(e)
    s.close()
    kind = ("root-" if uid == 0 else "") + (
        "ok" if '"ok":true' in reply else
        "rate" if "too many registrations" in reply else
        "limit" if "too many open jobs" in reply else
        # a burst of 150 connects can outlast tracerd's 500 ms for a request
        "timeout" if "timeout waiting for request" in reply else "other:" + reply)
    os.write(res_w, (kind + "\n").encode())
    os.read(hold_r, 1)  # stay alive (the job stays open) until released
    os._exit(0)


for i in range(150):
    register(300000 + i, wait_go=True)
os.write(go_w, b"g" * 150)
for i in range(250):
    register(301000 + i)
    time.sleep(1.0 / 40)
register(0)
os.close(res_w)
results = []
with os.fdopen(res_r) as f:
    for _ in range(len(children)):
        results.append(f.readline().strip())
os.close(hold_w)  # release every holder
for pid in children:
    os.waitpid(pid, 0)
count = lambda k: sum(1 for r in results if r == k)
others = [r for r in results if r.startswith("other:") or r.startswith("root-other")]
print("accepted=%d refused_rate=%d refused_limit=%d timeout=%d other=%d root=%s"
      % (count("ok"), count("rate"), count("limit"), count("timeout"), len(others),
         "ok" if "root-ok" in results else "refused"))
for o in others[:3]:
    print("  " + o)
