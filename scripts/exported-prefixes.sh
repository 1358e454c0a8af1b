#!/bin/bash
# exported-prefixes.sh [BUILD] - the global functions and data of each
# lib/ and daemon/ object (nm) whose name carries neither its file's name
# nor its module's (the file's name up to the first _; underscores in
# the name's leading words ignored: idle_host_* is idlehost.c's; in
# daemon/cli/, cli_ is the tracer command's own prefix).  One
# line each: OBJECT NAME.  Lists, never fails: a line is a name to
# rename, or one kept on purpose (lib/lazycurl.c stands in for libcurl's
# own names).
set -u
BUILD=${1:-build}
for o in "$BUILD"/lib/*.o "$BUILD"/daemon/*.o "$BUILD"/daemon/cli/*.o; do
	[ -f "$o" ] || { echo "exported-prefixes.sh: no objects in $BUILD (make all)" >&2; exit 1; }
	f=$(basename "$o" .o)
	nm --defined-only -g "$o" | awk '$2 ~ /^[TDBR]$/ {print $3}' |
		awk -v f="$f" -v o="$o" '
		function carries(s, p,    n, i, w) {
			if (index(s, p "_") == 1 || s == p) return 1
			# leading words joined: idle_host_x carries idlehost
			n = split(s, w, "_")
			for (i = 1; i <= n; i++) {
				joined = (i == 1) ? w[1] : joined w[i]
				if (joined == p) return 1
			}
			return 0
		}
		{
			mod = f; sub(/_.*/, "", mod)
			if (o ~ /\/daemon\/cli\// && carries($0, "cli")) next
			if ($0 != "main" && !carries($0, f) && !carries($0, mod) && !carries($0, mod "s"))
				print o, $0
		}'
done
