#!/bin/sh
# run-unit.sh BUILD [SUBDIR [PATTERN]] - run every CUnit binary
# BUILD/SUBDIR/PATTERN (SUBDIR: tests, the unit tests of `make check`;
# tests/kernel, the root tests of `make test`; PATTERN: test_*, or e.g.
# test_daemon_* for the daemon's own); fails if any fails.  Each one's
# output is kept in BUILD/SUBDIR/NAME.log.
BUILD=${1:-build}
DIR=$BUILD/${2:-tests}
PATTERN=${3:-test_*}
rc=0
n=0
for t in "$DIR"/$PATTERN; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	n=$((n + 1))
	if "$t" >"$t.log" 2>&1; then
		echo "PASS: $(basename "$t")"
	else
		echo "FAIL: $(basename "$t")"; sed 's/^/    /' "$t.log"; rc=1
	fi
done
if [ "$n" -eq 0 ]; then echo "FAIL: no test binaries in $DIR"; exit 1; fi
exit $rc
