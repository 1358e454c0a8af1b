#!/usr/bin/env python3
"""promq.py - ask a Prometheus server's HTTP API (loopback) for a query.

  promq.py PORT QUERY            exit 0 when the query has at least one
                                 series with a value > 0; prints the series
  promq.py PORT QUERY --any      exit 0 when it has at least one series
"""
import json
import sys
import urllib.parse
import urllib.request


def main(argv):
    port, query = argv[1], argv[2]
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    with urllib.request.urlopen(url, timeout=5) as r:
        reply = json.load(r)
    if reply.get("status") != "success":
        print(f"query failed: {reply}")
        return 1
    series = reply["data"]["result"]
    for s in series:
        print(s["metric"], s["value"][1])
    if not series:
        print(f"no series for {query}")
        return 1
    if "--any" in argv:
        return 0
    return 0 if any(float(s["value"][1]) > 0 for s in series) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
