#!/usr/bin/env python3
"""slowread.py SOCKET JSON MARKFILE - (as a user) send one archive request
and read its reply slowly, 1 KiB every 100 ms, so that the worker
answering it stays busy (each send makes progress well within tracerd's
send timeout) while the reply is long.  MARKFILE gets "reading" once the
first bytes came, "done" if the closing line ever came.  Runs until
killed or done."""
import socket
import sys
import time

SOCK, REQ, MARK = sys.argv[1:4]


def mark(text):
    with open(MARK, "w") as f:
        f.write(text + "\n")


s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(SOCK)
s.sendall(REQ.encode() + b"\n")
first = True
tail = b""
while True:
    chunk = s.recv(1024)
    if not chunk:
        break
    if first:
        mark("reading")
        first = False
    tail = (tail + chunk)[-4096:]
    if b'"count":' in tail and tail.endswith(b"\n"):
        break
    time.sleep(0.1)
mark("done")
