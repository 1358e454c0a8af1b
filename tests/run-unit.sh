#!/bin/sh
# run-unit.sh BUILD - run every CUnit binary of BUILD/tests (make check);
# fails if any fails.  Each one's output is kept in BUILD/tests/NAME.log.
BUILD=${1:-build}
rc=0
n=0
for t in "$BUILD"/tests/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	n=$((n + 1))
	if "$t" >"$t.log" 2>&1; then
		echo "PASS: $(basename "$t")"
	else
		echo "FAIL: $(basename "$t")"; sed 's/^/    /' "$t.log"; rc=1
	fi
done
if [ "$n" -eq 0 ]; then echo "FAIL: no unit test binaries in $BUILD/tests"; exit 1; fi
exit $rc
