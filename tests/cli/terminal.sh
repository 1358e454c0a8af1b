#!/bin/bash
# terminal.sh BUILD - `tracer show`, `jobs` and `report` on an 80-column
# terminal: a job with a long UTF-8 tool name and a long argv, recorded by
# a real tracerd with flags and a recommendation; every line of the text
# output fits 80 display cells (or the terminal's width), --wide keeps the
# whole strings, the flags are notes with their numbers and the request
# lines follow.  By default the report fits one screen: the top 10 tools
# and how many more, the process tree behind --tree (--tools, --all).
# Needs root (tracerd).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-term.XXXXXX)
. "$TOP/tests/lib.sh"
cleanup() {
	stop_tracerd
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
[ -x "$H/spin" ] || { echo "FAIL: helper $H/spin missing (make all)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed"; exit 1; }
command -v script >/dev/null || { echo "FAIL: script is not installed (bsdutils)"; exit 1; }
command -v taskset >/dev/null || { echo "FAIL: taskset is not installed (util-linux)"; exit 1; }

start_tracerd term -o advice_min_runtime_s=1 -o sample_interval_ms=200 -o price_cpu_hour=3.6 ||
	exit 1
# a tool name of 60 cells with wide (CJK) and accented characters, an argv of 300 bytes
TOOL="align-reads-with-a-very-long-tool-name-工具-über-lang-suffix-stage"
cp "$H/spin" "$TMP/$TOOL"
ARG="--reference=/data/genomes/GRCh38/$(printf 'very-long-directory-%d/' 1 2 3 4 5 6 7 8 9 10)genome.fa"
trun "$TMP/j.long" --name "$TOOL" --cpus 2 -- taskset -c 1 "$TMP/$TOOL" 2000 "$ARG"
wait_until 20 "the summary of the long-named job" summary_of_job "$TMP/j.long" || { finish; exit 1; }
JOB=$(cat "$TMP/j.long")

# fits WIDTH FILE: every line at most WIDTH display cells (East Asian wide
# characters 2, combining marks 0), and the file is not empty
fits() {
	python3 - "$1" "$2" <<'PY'
import sys, unicodedata
width, path = int(sys.argv[1]), sys.argv[2]
lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
def cells(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in s)
bad = [(cells(l), l) for l in lines if cells(l) > width]
for n, l in bad:
    print(f"{n} cells: {l}")
sys.exit(1 if bad or not lines else 0)
PY
}
# longest FILE: the widest line, in cells, is more than 80
wider_than_80() { ! fits 80 "$1"; }

echo "== tracer show, not a terminal: 80 columns"
tr_cli show "$JOB" >"$TMP/show.txt" 2>&1
check "tracer show: every line at most 80 cells" fits 80 "$TMP/show.txt"
check "tracer show: a long header line wraps under its text, numbers kept" \
	grep -Eq '^         (.*, )?TCP connects [0-9]+, accepts [0-9]+$' "$TMP/show.txt"
check "tracer show: the tool name cut with ..." grep -q "^align-r[^ ]*\.\.\. " "$TMP/show.txt"
check "tracer show: the flags as notes, after the header" \
	awk '/^NOTES$/ { n = NR } /^TOOL / { t = NR } /^State / { s = NR } END { exit !(s && n > s && t > n) }' \
	"$TMP/show.txt"
check "a note: the sentence with its numbers (serial_in_parallel_allocation)" \
	grep -Eq '^  \* CPU efficiency [0-9]+% of 2 CPUs, about 1/2: this looks like a' "$TMP/show.txt"
check "a note: its id and evidence" \
	sh -c "tr -d '\n' <'$TMP/show.txt' | grep -Eq '\[warning serial_in_parallel_allocation: cpu_efficiency [0-9]+%, +allocated_cpus 2\]'"
check "a note naming the idle CPU" grep -Eq '^  \* CPUs 0 of 0-1 ' "$TMP/show.txt"
check "the request lines: Slurm syntax with 1 CPU" grep -Eq '^  Slurm +--cpus-per-task=1 ' "$TMP/show.txt"
check "the Nextflow request on two lines (cpus, then memory)" \
	sh -c "grep -A1 '^  Nextflow   cpus = 1\$' '$TMP/show.txt' | grep -q \"^             memory = '[0-9]* [GM]B'\""
check "the request lines: Nextflow, Snakemake, AWS Batch" \
	sh -c "grep -q '^  Nextflow ' '$TMP/show.txt' && grep -q '^  Snakemake ' '$TMP/show.txt' && grep -q '^  AWS Batch ' '$TMP/show.txt'"

tr_cli show --all "$JOB" >"$TMP/show-all.txt" 2>&1
check "tracer show --all: every line at most 80 cells" fits 80 "$TMP/show-all.txt"
check "tracer show --all: the process tree, cut to 80 columns" grep -q '^PROCESS TREE ' "$TMP/show-all.txt"

echo "== tracer show --wide --all: everything"
tr_cli show --wide --all "$JOB" >"$TMP/wide.txt" 2>&1
check "--wide: lines longer than 80" wider_than_80 "$TMP/wide.txt"
check "--wide: the whole tool name" grep -qF "$TOOL " "$TMP/wide.txt"
check "--wide: the whole argv" grep -qF -- "$ARG" "$TMP/wide.txt"
check "--wide: the whole AWS Batch request" grep -q 'AWS Batch .*"MEMORY", "value": "[0-9]*"}]$' "$TMP/wide.txt"
check "--wide: UTF-8 columns aligned (PEAK RSS column at the same cell on header and tool row)" \
	python3 - "$TMP/wide.txt" <<'PY'
import sys, unicodedata
def cells(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("TOOL "))
h, row = lines[head], lines[head + 1]
col = cells(h[:h.index("PEAK RSS") + len("PEAK RSS")])
# the row's PEAK RSS value ends in " B" at the same cell as the header ends
vals = [i for i in range(len(row)) if row[i:i + 1] == "B" and cells(row[:i + 1]) == col]
sys.exit(0 if vals else 1)
PY

echo "== on a terminal: its width"
script -qec "stty cols 60; $BUILD/tracer -o socket=$TRACERD_SOCK -o file=$TRACERD_FILE show $JOB" \
	/dev/null </dev/null | tr -d '\r' >"$TMP/tty60.txt"
check "a 60-column terminal (TIOCGWINSZ): every line at most 60 cells" fits 60 "$TMP/tty60.txt"
check "a 60-column terminal: the notes are there" grep -q serial_in_parallel "$TMP/tty60.txt"
script -qec "stty cols 0 rows 0; COLUMNS=120 $BUILD/tracer -o socket=$TRACERD_SOCK -o file=$TRACERD_FILE show $JOB" \
	/dev/null </dev/null | tr -d '\r' >"$TMP/tty120.txt"
check "a terminal of unknown size, COLUMNS=120: at most 120 cells" fits 120 "$TMP/tty120.txt"
check "a terminal of unknown size, COLUMNS=120: wider than 80" wider_than_80 "$TMP/tty120.txt"

echo "== tracer show on one screen: the top 10 tools, the rest behind options"
# a job of 13 tools: sh and 12 copies of spin under their own names
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do cp "$H/spin" "$TMP/tool$i"; done
trun "$TMP/j.many" --name many -- sh -c 'for i in 01 02 03 04 05 06 07 08 09 10 11 12; do "$0/tool$i" 20; done' "$TMP"
wait_until 20 "the summary of the job of 13 tools" summary_of_job "$TMP/j.many" || { finish; exit 1; }
MANY=$(cat "$TMP/j.many")
NTOOLS=$(tr_cli show --json "$MANY" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["tools"]))')
tr_cli show "$MANY" >"$TMP/many.txt" 2>&1
# tool_rows FILE: the rows of the tool table (from its header to the line
# after its last row)
tool_rows() {
	awk '/^TOOL / { t = 1; next } t && (/^$/ || / more tools / || /^Process tree: / || /^PROCESS TREE/) { t = 0 } t { n++ } END { print n + 0 }' "$1"
}
check "tracer show: 10 tool rows of the $NTOOLS" test "$(tool_rows "$TMP/many.txt")" = 10
check "tracer show: says how many tools are left out" \
	grep -qx "$((NTOOLS - 10)) more tools (--tools lists them)" "$TMP/many.txt"
check "tracer show: no process tree, a line that says where it is" \
	sh -c "! grep -q '^PROCESS TREE' '$TMP/many.txt' && grep -Eqx 'Process tree: [0-9]+ of [0-9]+ processes kept \(--tree shows it\)' '$TMP/many.txt'"
check "tracer show: one screen (at most 50 lines)" test "$(wc -l <"$TMP/many.txt")" -le 50
# the same job with 16 notes of its own more: the table lists fewer
# tools (5 at least) so that the report stays one screen (60 lines)
tr_cli show --json "$MANY" | python3 -c 'import json, sys
s = json.load(sys.stdin)
s["flags"] = [{"id": f"made_up_{i}", "severity": "warning",
               "message": f"a note of the job made up for the test, number {i}, long enough to wrap once",
               "evidence": {"value_s": i}} for i in range(16)] + s.get("flags", [])
print(json.dumps(s))' >"$TMP/notes.ndjson"
"$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/notes.ndjson" show "$MANY" >"$TMP/notes.txt" 2>&1
many_notes() {
	local n r
	n=$(wc -l <"$TMP/notes.txt")
	r=$(tool_rows "$TMP/notes.txt")
	[ "$(grep -c "made_up_" "$TMP/notes.txt")" = 16 ] && [ "$n" -le 60 ] && [ "$r" -ge 5 ] && [ "$r" -lt 10 ] &&
		grep -qx "$((NTOOLS - r)) more tools (--tools lists them)" "$TMP/notes.txt" ||
		{ echo "$n lines, $r tool rows:"; cat "$TMP/notes.txt"; return 1; }
}
check "tracer show, 16 notes more: one screen (60 lines), fewer tools listed (5 at least)" many_notes
tr_cli show --tools "$MANY" >"$TMP/many.tools" 2>&1
check "tracer show --tools: every tool, no tree" \
	sh -c "test $(tool_rows "$TMP/many.tools") = $NTOOLS && ! grep -q 'more tools' '$TMP/many.tools' && ! grep -q '^PROCESS TREE' '$TMP/many.tools'"
tr_cli show --tree "$MANY" >"$TMP/many.tree" 2>&1
check "tracer show --tree: the process tree, 10 tools" \
	sh -c "grep -q '^PROCESS TREE' '$TMP/many.tree' && grep -q ' tool12 ' '$TMP/many.tree' && grep -q 'more tools' '$TMP/many.tree'"
tr_cli show --all "$MANY" >"$TMP/many.all" 2>&1
check "tracer show --all: every tool and the process tree" \
	sh -c "grep -q '^PROCESS TREE' '$TMP/many.all' && ! grep -q 'more tools' '$TMP/many.all' && grep -q '^tool12 ' '$TMP/many.all'"

echo "== tracer jobs and tracer report"
tr_cli jobs >"$TMP/jobs.txt" 2>&1
check "tracer jobs: every line at most 80 cells" fits 80 "$TMP/jobs.txt"
check "tracer jobs: the job uid whole" grep -q "^$JOB " "$TMP/jobs.txt"
check "tracer jobs: says which columns it left out" grep -q "columns wide; --wide shows .*START" "$TMP/jobs.txt"
tr_cli jobs --wide >"$TMP/jobs.wide" 2>&1
check "tracer jobs --wide: the whole name and the START column" \
	sh -c "grep -qF '$TOOL' '$TMP/jobs.wide' && grep -q ' START ' '$TMP/jobs.wide'"
for by in task tool; do
	tr_cli report --by $by >"$TMP/rep.$by" 2>&1
	check "tracer report --by $by: every line at most 80 cells" fits 80 "$TMP/rep.$by"
	tr_cli report --by $by --wide >"$TMP/rep.$by.wide" 2>&1
	check "tracer report --by $by --wide: the whole name" grep -qF "$TOOL" "$TMP/rep.$by.wide"
done
finish
