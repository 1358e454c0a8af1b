#!/usr/bin/env python3
"""req.py SOCKET JSON [hold] - send one request line to tracerd, print the
reply line.  With "hold", stay connected-free but alive until stdin closes
(a registered process must live for its job to stay open)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tracerd_req import request  # noqa: E402


if __name__ == "__main__":
    print(request(sys.argv[1], sys.argv[2]), flush=True)
    if len(sys.argv) > 3 and sys.argv[3] == "hold":
        sys.stdin.read()
