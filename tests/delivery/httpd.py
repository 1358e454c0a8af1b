#!/usr/bin/env python3
"""httpd.py MODE PORT LOG [FAILS] - a loopback collector for the HTTP sink.

MODE ok: answers 200.  fail-then-ok: the first FAILS requests get 500.
hang: accepts, reads nothing, never answers, and holds each connection
until it is stopped; when a request's first bytes have come (peeked, left
unread) it appends {"held": N} to LOG, N the requests held so far: the
marker a test waits for (a connection that only checks the port is not
one).  Every request is appended
to LOG as one JSON line: status sent, headers, the summaries received
(gunzipped, parsed).  Reply bodies carry the marker REPLY-BODY-MARKER, so
a test can check that no reply body reaches anybody's stdout.
"""
import gzip, http.server, json, select, socket, sys, threading, time

mode, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fails = int(sys.argv[4]) if len(sys.argv) > 4 else 1
seen = [0]
lock = threading.Lock()

class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        with lock:
            seen[0] += 1
            status = 500 if mode == "fail-then-ok" and seen[0] <= fails else 200
            with open(log, "a") as f:
                f.write(json.dumps({"status": status, "headers": dict(self.headers),
                                    "summaries": json.loads(body)}) + "\n")
        reply = b"REPLY-BODY-MARKER " + (b"error\n" if status == 500 else b"ok\n")
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *a):
        pass

if mode == "hang":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    waiting, held = [], []  # accepted, nothing received yet; requests held
    while True:
        ready, _, _ = select.select([s] + waiting, [], [])
        for c in ready:
            if c is s:
                waiting.append(s.accept()[0])
                continue
            waiting.remove(c)
            try:
                begun = c.recv(1, socket.MSG_PEEK)
            except OSError:
                begun = b""
            if not begun:
                c.close()  # closed without a request (a port check)
                continue
            held.append(c)  # kept open, never read, never answered
            with open(log, "a") as f:
                f.write(json.dumps({"held": len(held)}) + "\n")
else:
    http.server.ThreadingHTTPServer.allow_reuse_address = True
    http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
