#!/usr/bin/env python3
"""lostreply.py PORT UPSTREAM_PORT MARKER N - an HTTP relay on loopback
PORT to ClickHouse on UPSTREAM_PORT that loses the answer of the first N
requests whose URL has MARKER: the request reaches ClickHouse whole and
is done there, then the relay closes the client's connection without a
reply (a reply lost on the way: the client cannot tell whether its
insert went in).  Prints "ready" once listening, and "lost" for each
answer it lost."""
import socket
import sys
import threading
import urllib.parse

port, up, marker, left = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], [int(sys.argv[4])]
lock = threading.Lock()


def read_request(f):
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = f.readline()
        if not line:
            return None, None
        head += line
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    return head, f.read(n) if n else b""


def forward(head, body):
    lines = head.split(b"\r\n")
    lines = [l for l in lines if l and not l.lower().startswith(b"connection:")]
    req = b"\r\n".join(lines) + b"\r\nConnection: close\r\n\r\n" + body
    with socket.create_connection(("127.0.0.1", up)) as s:
        s.sendall(req)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk


def serve(conn):
    f = conn.makefile("rb")
    try:
        while True:
            head, body = read_request(f)
            if head is None:
                return
            reply = forward(head, body)
            url = urllib.parse.unquote_plus(head.split(b" ", 2)[1].decode())
            with lock:
                lose = marker in url and left[0] > 0
                if lose:
                    left[0] -= 1
            if lose:
                print("lost", flush=True)
                return
            # the upstream closed after its answer: so does the relay
            conn.sendall(reply)
            return
    finally:
        f.close()
        conn.close()


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)
    print("ready", flush=True)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
