#!/bin/bash
# demo.sh BUILD - `make demo`'s run (contrib/demo/run-demo.sh) as a
# newcomer meets it: it exits 0, its job's report has notes and the
# request to make next time in the four syntaxes, fits one screen, the
# HTML report is written where it says, every command it prints works
# when pasted as printed, and the README's sample of `tracer show` has
# the same lines and columns as what tracer show printed for the demo
# job (readme.py; values may differ).  Needs root (tracerd), python3, bwa
# and samtools (scripts/install-deps.sh demo).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-demo-test.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'rm -rf "$TMP"' EXIT
need_root
for t in python3 bwa samtools; do
	command -v "$t" >/dev/null || { echo "FAIL: $t is not installed (scripts/install-deps.sh demo)"; exit 1; }
done
rm -f "$BUILD/demo-report.html"

"$TOP/contrib/demo/run-demo.sh" "$BUILD" >"$TMP/demo.out" 2>&1
rc=$?
check "the demo exits 0" test "$rc" = 0 || sed 's/^/    /' "$TMP/demo.out" | tail -n 20
# the report: from the "$ tracer show" line to the blank line before "The HTML report"
sed -n '/^\$ tracer show /,/^The HTML report:/p' "$TMP/demo.out" | sed '1d;$d' >"$TMP/show.txt"
check "the demo prints the job's report" grep -q '^Job ' "$TMP/show.txt"
check "the demo says that its tracerd gives advice early" grep -q 'advice_min_runtime_s=1' "$TMP/demo.out"
check "the demo job has an allocation (4 CPUs, 4 GiB)" grep -Eq '^Alloc +4 CPUs .*memory 4.0 GiB' "$TMP/show.txt"
check "the demo job has notes: memory it never used" grep -q 'memory_overallocated' "$TMP/show.txt"
check "the request to make next time, in the four syntaxes" \
	sh -c "grep -q '^  Slurm ' '$TMP/show.txt' && grep -q '^  Nextflow ' '$TMP/show.txt' && grep -q '^  Snakemake ' '$TMP/show.txt' && grep -q '^  AWS Batch ' '$TMP/show.txt'"
check "the report fits one screen (at most 60 lines)" test "$(wc -l <"$TMP/show.txt")" -le 60
check "the report leaves the process tree out" sh -c "! grep -q '^PROCESS TREE' '$TMP/show.txt'"
check "the HTML report is written where the demo says" \
	sh -c "grep -qF 'The HTML report:  $BUILD/demo-report.html' '$TMP/demo.out' && test -s '$BUILD/demo-report.html'"
check "the HTML report has the notes and the request" \
	sh -c "grep -q 'memory_overallocated' '$BUILD/demo-report.html' && grep -q -- '--cpus-per-task=' '$BUILD/demo-report.html'"

# every command printed after the report, pasted as printed (in another
# directory: a pasted command does not depend on where it is pasted)
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	check "pasted as printed: ${cmd:0:60}..." sh -c "cd / && $cmd >/dev/null"
done < <(sed -n 's/^[A-Z][a-z][^:]*: *\('"${BUILD//\//\\/}"'\/tracer .*\)$/\1/p' "$TMP/demo.out")
check "the demo prints the commands to see more (2)" test "$n" = 2

check "README.md's sample: the lines and columns of tracer show for the demo job" \
	python3 "$TOP/tests/cli/readme.py" "$TOP/README.md" "$TMP/show.txt"
finish
