#!/usr/bin/env python3
"""work.py PIDFILE GOFILE - the tests' stand-in for a GPU program: writes
its pid, then keeps a CPU busy until GOFILE exists (the NVML double says
what it did on the GPU)."""
import os
import sys

with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpid()}\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while not os.path.exists(sys.argv[2]):
    pass
