#!/usr/bin/env python3
"""hang_server.py SOCKET COUNTFILE - a hung tracerd for the timeout test.

Listens on SOCKET, accepts every connection, reads what the client sends
and never answers, holding the connection open.  Writes the number of
connections accepted so far to COUNTFILE, so the test can tell that the
plugin did try.  Stopped by SIGTERM.
"""
import os
import selectors
import socket
import sys


def main(path, countfile):
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(128)
    sel = selectors.DefaultSelector()
    sel.register(srv, selectors.EVENT_READ)
    held = []
    accepted = 0
    while True:
        for key, _ in sel.select():
            if key.fileobj is srv:
                conn, _ = srv.accept()
                conn.setblocking(False)
                held.append(conn)
                sel.register(conn, selectors.EVENT_READ)
                accepted += 1
                with open(countfile + ".tmp", "w") as f:
                    f.write(f"{accepted}\n")
                os.replace(countfile + ".tmp", countfile)
            else:
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    held.remove(key.fileobj)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
