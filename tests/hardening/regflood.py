#!/usr/bin/env python3
"""regflood.py SOCKET STOPFILE OUTFILE IDENTITY_JSON - (as a user)
registrations one after the other from this one process, until STOPFILE
exists (120 s at most).  After each, OUTFILE is rewritten (by rename) with
one line of counts:
  sent=N ok=N rate=N other=N
ok: accepted; rate: refused by the rate limit; other: any other reply
(a bogus identity, refused by the identity check)."""
import os
import socket
import sys
import time

SOCK, STOP, OUT, IDENT = sys.argv[1:5]
LINE = ('{"op":"register","v":1,"identity":%s}\n' % IDENT).encode()
counts = {"sent": 0, "ok": 0, "rate": 0, "other": 0}
deadline = time.monotonic() + 120


def register():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    try:
        s.connect(SOCK)
        s.sendall(LINE)
        return s.makefile().readline()
    except OSError as e:
        return "error " + str(e)
    finally:
        s.close()


while not os.path.exists(STOP) and time.monotonic() < deadline:
    reply = register()
    counts["sent"] += 1
    if '"ok":true' in reply:
        counts["ok"] += 1
    elif "too many registrations" in reply:
        counts["rate"] += 1
    else:
        counts["other"] += 1
    with open(OUT + ".tmp", "w") as f:
        f.write(" ".join("%s=%d" % kv for kv in counts.items()) + "\n")
    os.rename(OUT + ".tmp", OUT)
