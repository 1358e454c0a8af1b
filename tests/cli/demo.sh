#!/bin/bash
# demo.sh BUILD - `make demo`'s run (contrib/demo/run-demo.sh) as a
# newcomer meets it: it exits 0, its job has an allocation of CPUs that
# exist, its report has the three notes on waste (the allocated CPU it
# left idle, the memory it never used, the tool that slept while the job
# idled) and the request to make next time in the four syntaxes, in the
# terminal, in the summary and in the HTML report, fits one screen, the
# HTML report is written where it says, every command it prints works
# when pasted as printed, and the README's sample of `tracer show` has
# the same lines and columns as what tracer show printed for the demo
# job (readme.py; values may differ).  Needs root (tracerd), a machine of
# 2 CPUs or more (one left idle), python3, bwa, samtools and taskset
# (scripts/install-deps.sh demo).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-demo-test.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'rm -rf "$TMP"' EXIT
need_root
for t in python3 bwa samtools taskset; do
	command -v "$t" >/dev/null || { echo "FAIL: $t is not installed (scripts/install-deps.sh demo)"; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "FAIL: the demo needs 2 CPUs or more to leave one idle (nproc: $(nproc))"; exit 1; }
rm -f "$BUILD/demo-report.html" "$BUILD/demo-jobs.ndjson"

"$TOP/contrib/demo/run-demo.sh" "$BUILD" >"$TMP/demo.out" 2>&1
rc=$?
check "the demo exits 0" test "$rc" = 0 || sed 's/^/    /' "$TMP/demo.out" | tail -n 20
# the report: from the "$ tracer show" line to the blank line the demo
# prints before "The HTML report"
sed -n '/^\$ tracer show /,/^The HTML report:/p' "$TMP/demo.out" | sed '1d;$d' | sed '$d' >"$TMP/show.txt"
check "the demo prints the job's report" grep -q '^Job ' "$TMP/show.txt"
check "the demo says that its tracerd gives advice early" grep -q 'advice_min_runtime_s=1' "$TMP/demo.out"
# honest: as many CPUs listed as counted, 2 to 4, and 4 GiB
check "the demo job has an allocation of CPUs that exist (2 to 4) and 4 GiB" python3 -c '
import re, sys
m = re.search(r"^Alloc +(\d+) CPUs \(([\d,]+)\), memory 4\.0 GiB$", open(sys.argv[1]).read(), re.M)
sys.exit(0 if m and 2 <= int(m[1]) <= 4 and len(m[2].split(",")) == int(m[1]) else 1)' "$TMP/show.txt"
WASTE="idle_allocation memory_overallocated sleeping_tool"
for id in $WASTE; do
	check "the demo job's report has the note $id" grep -q "$id" "$TMP/show.txt"
done
check "the request to make next time, in the four syntaxes" \
	sh -c "grep -q '^  Slurm ' '$TMP/show.txt' && grep -q '^  Nextflow ' '$TMP/show.txt' && grep -q '^  Snakemake ' '$TMP/show.txt' && grep -q '^  AWS Batch ' '$TMP/show.txt'"
# the same in the summary (tracer show --json): the idle CPU is one the
# pipeline was not pinned to, the tool that slept is sleep
"$BUILD/tracer" -o file="$BUILD/demo-jobs.ndjson" show last --json >"$TMP/show.json" 2>&1
check "tracer show --json: the three notes on waste, by flag name, and the request in four syntaxes" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in s.get("flags") or []}
missing = [i for i in ("idle_allocation", "memory_overallocated", "sleeping_tool") if i not in f]
sx = (s.get("recommendation") or {}).get("syntax") or {}
bad = [k for k in ("slurm", "nextflow", "snakemake", "aws_batch") if not sx.get(k)]
slept = f.get("sleeping_tool", {})
idle = set()
for r in (s.get("allocation_use") or {}).get("idle_cpus", "").split(","):
    if r:
        a, _, b = r.partition("-")
        idle |= set(range(int(a), int(b or a) + 1))
if missing or bad or slept.get("tool") != "sleep" or not idle or int(sys.argv[2]) in idle:
    sys.exit(f"flags {sorted(f)}, missing {missing}; syntaxes missing {bad}; sleeping_tool {slept}; "
             f"idle CPUs {sorted(idle)}, pinned to {sys.argv[2]}")' "$TMP/show.json" "$(sed -n 's/.* runs pinned to CPU \([0-9]*\),.*/\1/p' "$TMP/demo.out")"
fits_screen() { local n; n=$(wc -l <"$TMP/show.txt"); [ "$n" -le 60 ] || { echo "$n lines:"; cat "$TMP/show.txt"; return 1; }; }
check "the report fits one screen (at most 60 lines)" fits_screen
check "the report leaves the process tree out" sh -c "! grep -q '^PROCESS TREE' '$TMP/show.txt'"
check "the HTML report is written where the demo says" \
	sh -c "grep -qF 'The HTML report:  $BUILD/demo-report.html' '$TMP/demo.out' && test -s '$BUILD/demo-report.html'"
for id in $WASTE; do
	check "the HTML report has the note $id" grep -q "$id" "$BUILD/demo-report.html"
done
check "the HTML report has the request in the four syntaxes" \
	sh -c "grep -q -- '--cpus-per-task=' '$BUILD/demo-report.html' && grep -q 'cpus = ' '$BUILD/demo-report.html' && grep -q 'mem_mb=' '$BUILD/demo-report.html' && grep -q 'resourceRequirements' '$BUILD/demo-report.html'"

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
# the quick start, its heading to the next one, is read at once
check "README.md's quick start is at most 60 lines" \
	test "$(awk '/^## /{q = /^## Quick start$/} q' "$TOP/README.md" | wc -l)" -le 60
check "README.md shows the HTML report's picture, docs/report.png" \
	sh -c "grep -q '](docs/report.png)' '$TOP/README.md' && test -s '$TOP/docs/report.png'"
finish
