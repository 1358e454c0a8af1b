#!/usr/bin/env python3
"""grow.py FILE MIB - a step whose memory grows with its input: reads MIB
MiB of FILE and holds it twice (the bytes read and a copy)."""
import sys

n = int(sys.argv[2]) << 20
with open(sys.argv[1], "rb") as f:
    data = f.read(n)
copy = bytearray(data)
print(len(data) + len(copy))
