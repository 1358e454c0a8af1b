"""tracerd_req.py - the one way the suites' Python talks to tracerd's
socket: connect, send one request line, read the reply line.

    import tracerd_req
    tracerd_req.ask(path, {"op": "status", "v": 1})     -> the reply as JSON
    tracerd_req.request(path, '{"op":"status"}')        -> the reply line
    tracerd_req.exchange(path, b"raw bytes\\n")          -> the raw reply

A script in a suite's folder puts its parent folder on sys.path; a
heredoc runs with PYTHONPATH=$TOP/tests; a script run as another user
gets a copy next to it (that user may not read the tree)."""
import json
import os
import socket
import sys


def exchange(path, data, timeout=10, close_early=False):
    """Send data as it is; the reply up to its newline (b"" when the
    connection closed first, or at once when close_early)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(data)
        if close_early:
            return b""
        out = b""
        try:
            while not out.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except OSError:
            pass
        return out
    finally:
        s.close()


def request(path, line, timeout=10):
    """One request line (without its newline): the reply line, stripped."""
    out = exchange(path, line.encode() + b"\n", timeout)
    return out.decode(errors="replace").strip()


def ask(path, req, timeout=10):
    """One request object: the reply object."""
    return json.loads(exchange(path, json.dumps(req).encode() + b"\n", timeout))

