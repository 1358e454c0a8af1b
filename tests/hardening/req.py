#!/usr/bin/env python3
"""req.py SOCKET JSON [hold|pause] - send one request line to tracerd,
print the reply line.  With "hold", stay connected-free but alive until
stdin closes; with "pause", until a signal ends it (a registered process
must live for its job to stay open)."""
import signal
import socket
import sys


def request(path, line):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    s.sendall(line.encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    s.close()
    return buf.decode(errors="replace").strip()


if __name__ == "__main__":
    print(request(sys.argv[1], sys.argv[2]), flush=True)
    if len(sys.argv) > 3 and sys.argv[3] == "hold":
        sys.stdin.read()
    elif len(sys.argv) > 3 and sys.argv[3] == "pause":
        signal.pause()
