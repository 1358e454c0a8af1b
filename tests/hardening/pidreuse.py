#!/usr/bin/env python3
"""pidreuse.py SOCKET USER1 USER2 - (root) can USER1 tag USER2's process
by pid reuse?  USER1 connects to tracerd from a child that exits at once
(the connection lives on in the parent), the child's pid is handed to a
process of USER2 (through /proc/sys/kernel/ns_last_pid), then USER1 sends
its registration.  Prints the reply; exit 0 when the registration was
refused, 1 when tracerd accepted it (USER2's process was tagged), 2 when
the pid could not be reused (retried a few times)."""
import os
import pwd
import socket
import sys
import time

SOCK, U1, U2 = sys.argv[1], pwd.getpwnam(sys.argv[2]), pwd.getpwnam(sys.argv[3])


def become(pw):
    os.setgroups([])
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)


def attempt():
    to_root_r, to_root_w = os.pipe()
    go_r, go_w = os.pipe()
    a = os.fork()
    if a == 0:  # USER1's process that keeps the connection
        os.close(to_root_r)
        os.close(go_w)
        become(U1)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c = os.fork()
        if c == 0:  # the one that connects, then exits
            s.connect(SOCK)
            os._exit(0)
        os.waitpid(c, 0)
        os.write(to_root_w, b"%d\n" % c)
        os.read(go_r, 1)
        s.settimeout(10)
        s.sendall(b'{"op":"register","v":1,"identity":{"task_name":"reuse"}}\n')
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
        os.write(to_root_w, reply or b"(no reply)\n")
        os._exit(0)
    os.close(to_root_w)
    os.close(go_r)
    r = os.fdopen(to_root_r)
    pid = int(r.readline())
    # USER2's victim gets the freed pid
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write("%d" % (pid - 1))
    v = os.fork()
    if v == 0:
        become(U2)
        os.execv("/bin/sleep", ["sleep", "30"])
    ok = v == pid
    os.write(go_w, b"g")
    reply = r.readline().strip()
    os.waitpid(a, 0)
    os.kill(v, 9)
    os.waitpid(v, 0)
    return ok, reply


for _ in range(10):
    reused, reply = attempt()
    if reused:
        print("pid reused by %s; reply: %s" % (sys.argv[3], reply))
        sys.exit(1 if '"ok":true' in reply else 0)
    time.sleep(0.05)
print("the pid was taken by another process 10 times: cannot test")
sys.exit(2)
