#!/bin/bash
# run.sh BUILD - the command lines of tracer, tracerd and tracer-wrap:
# every command answers --help (exit 0, usage on stdout), a bad option is
# a usage error (exit 2, one line naming it), and `tracer jobs` selects
# jobs as sacct does (-u, -S, -E, --state, --name, -r, -n, --json, --csv)
# from summaries of known users, states and times (fixtures.py).  Needs
# neither root nor tracerd.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-cli.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'rm -rf "$TMP"' EXIT
for b in tracerd tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed"; exit 1; }
# local times in the checks below are UTC
export TZ=UTC
F=$TMP/jobs.ndjson
trc() { "$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file="$F" "$@"; }

echo "== --help: exit 0, usage on stdout, nothing on stderr"
helps_ok() {
	local out err rc
	out=$("$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
	[ $rc = 0 ] && [ -z "$err" ] && grep -qi '^usage: ' <<<"$out" ||
		{ echo "rc $rc, stdout: ${out:0:200}, stderr: $err"; return 1; }
}
for cmd in "tracer" "tracer status" "tracer jobs" "tracer show" "tracer report" "tracer run" \
	"tracer datalake" "tracer tune" "tracerd" \
	"tracer-wrap"; do
	# shellcheck disable=SC2086
	set -- $cmd
	b=$1; shift
	check "$cmd --help" helps_ok "$BUILD/$b" "$@" --help
	check "$cmd -h" helps_ok "$BUILD/$b" "$@" -h
done
check "tracer help comes before the command's other arguments" \
	helps_ok "$BUILD/tracer" jobs -u alice --help

echo "== usage errors: exit 2, one line on stderr naming the option"
# usage_error WANT_LINE COMMAND...: exit 2, empty stdout, stderr exactly WANT_LINE
usage_error() {
	local want=$1 out err rc
	shift
	out=$("$@" 2>"$TMP/err" </dev/null); rc=$?; err=$(cat "$TMP/err")
	[ $rc = 2 ] && [ -z "$out" ] && [ "$err" = "$want" ] ||
		{ echo "rc $rc, stdout: ${out:0:200}"; echo "stderr: $err"; echo "wanted: $want"; return 1; }
}
for sub in status jobs show report run datalake tune; do
	check "tracer $sub --bogus" usage_error \
		"tracer $sub: unknown option --bogus (see tracer $sub --help)" trc "$sub" --bogus x
	check "tracer $sub -Z" usage_error \
		"tracer $sub: unknown option -Z (see tracer $sub --help)" trc "$sub" -Z x
done
check "tracer --bogus=1" usage_error "tracer: unknown option --bogus (see tracer --help)" \
	"$BUILD/tracer" --bogus=1 jobs
check "tracer -c without a value" usage_error "tracer: option -c needs a value" "$BUILD/tracer" -c
check "tracer --json=yes" usage_error "tracer: option --json takes no value" "$BUILD/tracer" --json=yes jobs
check "tracer frob" usage_error \
	"tracer: unknown command frob (status, jobs, show, report, sweep, tune, run, datalake; see tracer --help)" trc frob
check "tracer without a command" usage_error \
	"tracer: no command (status, jobs, show, report, sweep, tune, run, datalake; see tracer --help)" "$BUILD/tracer"
check "tracer datalake without an action" usage_error \
	"tracer datalake: no action (migrate, status; see tracer datalake --help)" trc datalake
check "tracer datalake frob" usage_error \
	"tracer datalake: unknown action frob (migrate, status; see tracer datalake --help)" trc datalake frob
check "tracer jobs -S without a value" usage_error "tracer jobs: option -S needs a value" trc jobs -S
check "tracer jobs --starttime without a value" usage_error \
	"tracer jobs: option --starttime needs a value" trc jobs --starttime
check "tracer jobs -S with a bad time" usage_error \
	'tracer jobs: -S: "last tuesday" is not a time (now-1day, today, 2026-11-22T06:30, ...)' \
	trc jobs -S "last tuesday"
check "tracer jobs --limit -1" usage_error 'tracer jobs: --limit: "-1" is not a count (0 or more)' trc jobs --limit -1
check "tracer jobs with an argument" usage_error \
	'tracer jobs: unexpected argument "j1" (see tracer jobs --help)' trc jobs j1
check "tracer show without a job" usage_error \
	'tracer show: which job? (a job uid, job id, task name or "last"; see tracer show --help)' trc show
check "tracer show with two jobs" usage_error \
	'tracer show: unexpected argument "j2" (see tracer show --help)' trc show j1 j2
check "tracer status with an argument" usage_error \
	'tracer status: unexpected argument "now" (see tracer status --help)' trc status now
check "tracer run without a command" usage_error \
	"tracer run: no command to run (see tracer run --help)" trc run --name x
check "tracerd --bogus" usage_error "tracerd: unknown option --bogus (see tracerd --help)" \
	"$BUILD/tracerd" --bogus
check "tracerd -Z" usage_error "tracerd: unknown option -Z (see tracerd --help)" "$BUILD/tracerd" -Z
check "tracerd -o without a value" usage_error "tracerd: option -o needs a value" "$BUILD/tracerd" -o
check "tracerd with an argument" usage_error \
	'tracerd: unexpected argument "start" (see tracerd --help)' "$BUILD/tracerd" start
check "tracer-wrap --bogus=1" usage_error \
	"tracer-wrap: unknown option --bogus (see tracer-wrap --help)" "$BUILD/tracer-wrap" --bogus=1 true
check "tracer-wrap -Z" usage_error "tracer-wrap: unknown option -Z (see tracer-wrap --help)" \
	"$BUILD/tracer-wrap" -Z true
check "tracer-wrap -o without a value" usage_error "tracer-wrap: option -o needs a value" \
	"$BUILD/tracer-wrap" -o
check "tracer-wrap without a command" usage_error \
	"tracer-wrap: no command to run (see tracer-wrap --help)" "$BUILD/tracer-wrap" --standalone

echo "== the command's own options are left alone"
passes_through() {
	local out rc
	out=$(trc run "$@" 2>"$TMP/err"); rc=$?
	[ $rc = 3 ] && [ "$out" = "--help -Z --bogus" ] || { echo "rc $rc: $out"; cat "$TMP/err"; return 1; }
}
check "tracer run -- sh -c ... --help -Z --bogus" passes_through \
	-- sh -c 'echo "$@"; exit 3' sh --help -Z --bogus
check "tracer run sh -c ... --help (no --)" passes_through \
	--name x sh -c 'echo "$@"; exit 3' sh --help -Z --bogus

echo "== tracer jobs: filters"
"$BUILD/tracer-wrap" --standalone -o sinks=file -o file="$TMP/template.ndjson" -- /bin/true ||
	fail "tracer-wrap --standalone could not record the template job"
python3 "$TOP/tests/cli/fixtures.py" "$TMP/template.ndjson" "$F" ||
	{ fail "fixtures.py"; finish; exit 1; }
ids() { python3 -c 'import json, sys; print(" ".join(s["job"] for s in json.load(sys.stdin)))'; }
# selects "WANT" ARGS...: tracer jobs --json ARGS lists exactly the jobs WANT, in that order
selects() {
	local want=$1 got
	shift
	got=$(trc jobs --json "$@" | ids) && [ "$got" = "$want" ] || { echo "got \"$got\", want \"$want\""; return 1; }
}
check "no filter: every job, oldest first" selects "j4 j1 j2 j3 j5"
check "-u alice" selects "j1 j3" -u alice
check "--user=alice,carol" selects "j4 j1 j3" --user=alice,carol
check "-u 1002 (a uid)" selects "j2 j5" -u 1002
check "-u nobody-here" selects "" -u nobody-here
check "-S now-1day: running at some point in the last day" selects "j2 j3 j5" -S now-1day
check "--starttime now-7minutes" selects "j5" --starttime now-7minutes
check "-E now-1day: started more than a day ago" selects "j4 j1" -E now-1day
check "-S now-90min -E now-20min: overlapping the window" selects "j2 j3" -S now-90min -E now-20min
check "-S and -E in ISO forms with zones" selects "j4" \
	-S 2026-01-10T11:00Z -E 2026-01-10T11:30:00+00:00
check "--endtime 2026-01-10T09:59:59 (before every job)" selects "" --endtime 2026-01-10T09:59:59
check "-S 2026-01-10 (a date)" selects "j4 j1 j2 j3 j5" -S 2026-01-10
check "-S today -E now" selects "$(python3 -c '
import time; now = time.time(); day = now - now % 86400
# which fixture jobs (ends relative to now, fixtures.py) ended today, UTC
print(" ".join(j for j, end in (("j1", now - 3 * 86400 + 3600), ("j2", now - 3600),
      ("j3", now - 600), ("j5", now - 60)) if end >= day))')" -S today -E now
check "--state failed (any case)" selects "j2" --state failed
check "--state CD,OOM (sacct abbreviations)" selects "j1 j3" --state CD,OOM
check "-s OUT_OF_MEMORY,CANCELLED" selects "j3 j5" -s OUT_OF_MEMORY,CANCELLED
check "--state R: no finished job is running" selects "" --state R
check "--name align" selects "j1 j3" --name align
check "--name sort,call" selects "j2 j5" --name sort,call
check "-r R2 (run id)" selects "j3 j5" -r R2
check "--run nightly (run name)" selects "j3" --run nightly
check "--limit 2: the two newest" selects "j3 j5" --limit 2
check "--limit 0: all" selects "j4 j1 j2 j3 j5" --limit 0
check "-u alice --limit 1" selects "j3" -u alice --limit 1
check "-u bob --state CA -S now-1hour" selects "j5" -u bob --state CA -S now-1hour
global_json() { [ "$(trc --json jobs -u bob | ids)" = "j2 j5" ]; }
check "tracer --json jobs -u bob (the global --json)" global_json
every_time_form() {
	local t
	for t in now now-1day now+2h now-30 now-30s now-5min now-2hours now-1week today yesterday \
		tomorrow 2026-11-22 2026-11-22T06:30 "2026-11-22 06:30:15" 2026-11-22T06:30:15.5Z \
		2026-11-22T06:30+01:00 2026-11-22T06:30:00-0500; do
		trc jobs -S "$t" --json >/dev/null || { echo "-S $t refused"; return 1; }
	done
}
check "every documented TIME form is accepted" every_time_form

echo "== tracer jobs: table and CSV"
table_ok() {
	local out
	out=$(trc jobs --name align) || return 1
	[ "$(head -1 <<<"$out" | awk '{print $1, $NF}')" = "JOB STATE" ] &&
		[ "$(awk 'NR > 1 {print $1, $NF}' <<<"$out" | tr "\n" " ")" = "j1 COMPLETED j3 OUT_OF_MEMORY " ] ||
		{ echo "$out"; return 1; }
}
check "table: header, two rows, the state column" table_ok
csv_ok() {
	trc jobs --csv -u carol,alice --limit 0 | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["job"] for r in rows] == ["j4", "j1", "j3"], rows
assert rows[0]["name"] == "a,b \"quoted\"", rows[0]["name"]
assert rows[0]["state"] == "" and rows[2]["state"] == "OUT_OF_MEMORY", rows
assert rows[1]["user"] == "alice" and rows[2]["run_name"] == "nightly", rows
assert abs(float(rows[0]["wall_s"]) - 7200) < 0.01, rows[0]["wall_s"]
assert rows[1]["exit_code"] == "0" and rows[1]["exit_signal"] == "", rows[1]
assert int(rows[1]["processes"]) == 1 and float(rows[1]["mem_peak_bytes"]) > 0, rows[1]
'
}
check "CSV: RFC 4180 quoting, empty unknowns, numbers as numbers" csv_ok
no_file_csv() { [ "$("$BUILD/tracer" -o file="$TMP/none" -o socket=/nonexistent/s jobs --csv | wc -l)" = 1 ]; }
check "CSV without a summary file: the header alone" no_file_csv
echo "== names from users: escaped on a terminal, never a formula in CSV"
# five jobs of the template's time, named with control characters and
# spreadsheet formulas
python3 - "$TMP/template.ndjson" "$TMP/evil.ndjson" <<'PY'
import json, sys
t = json.loads(open(sys.argv[1]).readline())
names = {"e1": "evil\x1b]0;owned\x07\x1b[2J\r", "e2": '=HYPERLINK("http://x","y")',
         "e3": "@SUM(A1:A9)", "e4": "+1+2", "e5": "-3+4"}
with open(sys.argv[2], "w") as out:
    for job, name in names.items():
        s = json.loads(json.dumps(t))
        s["job"] = job
        s["identity"]["task_name"] = name
        s["identity"]["run_id"] = "=run-" + job
        out.write(json.dumps(s, separators=(",", ":")) + "\n")
PY
evil() { "$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file="$TMP/evil.ndjson" "$@"; }
# no_raw_controls FILE: no C0 control but newline (and CR/tab), no DEL, no C1; not empty
no_raw_controls() {
	python3 -c '
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.findall(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]", data)
sys.exit(1 if bad or not data else 0)' "$1"
}
evil report --by task --wide >"$TMP/evil.report" 2>&1
check "tracer report prints no raw control character" no_raw_controls "$TMP/evil.report"
check "tracer report prints the task name escaped" grep -qF 'evil\x1b]0;owned\x07' "$TMP/evil.report"
# csv_cells COLUMN FILE WANT...: the column's cells, parsed as CSV, are exactly WANT (sorted)
csv_cells() {
	python3 - "$@" <<'PY'
import csv, sys
col, path, want = sys.argv[1], sys.argv[2], sorted(sys.argv[3:])
got = sorted(r[col] for r in csv.DictReader(open(path, newline="")))
sys.exit(0 if got == want else print(f"got {got}, want {want}") or 1)
PY
}
evil report --by task --csv >"$TMP/evil.task.csv"
check "report --csv: formulas start with a quote" csv_cells task "$TMP/evil.task.csv" \
	"$(printf 'evil\033]0;owned\007\033[2J\r')" "'=HYPERLINK(\"http://x\",\"y\")" "'@SUM(A1:A9)" "'+1+2" "'-3+4"
evil report --by run --csv >"$TMP/evil.run.csv"
check "report --by run --csv: formulas start with a quote" csv_cells run "$TMP/evil.run.csv" \
	"'=run-e1" "'=run-e2" "'=run-e3" "'=run-e4" "'=run-e5"
evil jobs --csv --limit 0 >"$TMP/evil.jobs.csv"
check "jobs --csv: formulas start with a quote" csv_cells name "$TMP/evil.jobs.csv" \
	"$(printf 'evil\033]0;owned\007\033[2J\r')" "'=HYPERLINK(\"http://x\",\"y\")" "'@SUM(A1:A9)" "'+1+2" "'-3+4"
evil report --by pipeline --csv >"$TMP/evil.pipeline.csv"
check "report --csv: the unknown group \"-\" stays as it is" csv_cells pipeline "$TMP/evil.pipeline.csv" -
echo "== --html never writes through a symbolic link"
printf 'keep\n' >"$TMP/target"
ln -s "$TMP/target" "$TMP/link.html"
html_refused() {
	local out rc
	out=$("$@" 2>&1); rc=$?
	[ $rc = 1 ] && [ "$(cat "$TMP/target")" = keep ] && grep -q "is a symbolic link: not followed" <<<"$out" ||
		{ echo "rc $rc: $out"; head -c 200 "$TMP/target"; return 1; }
}
check "show --html LINK: refused, the link's target untouched" html_refused trc show j1 --html "$TMP/link.html"
check "report --run --html LINK: refused, the link's target untouched" \
	html_refused trc report --run R1 --html "$TMP/link.html"
mkfifo "$TMP/fifo.html"
check "show --html FIFO: refused at once (not waiting for a reader)" sh -c "timeout 30 '$BUILD/tracer' -o socket='$TMP/no-daemon.sock' -o file='$F' show j1 --html '$TMP/fifo.html'; [ \$? = 1 ]"
html_written() { trc show j1 --html "$TMP/page.html" && grep -q '</html>' "$TMP/page.html"; }
check "show --html FILE: a new file is written" html_written
show_ok() {
	local out
	out=$(trc show j3 --json) && python3 -c 'import json, sys; assert json.loads(sys.argv[1])["job"] == "j3"' "$out" ||
		{ echo "$out" | head; return 1; }
}
check "tracer show JOB --json (options after the job)" show_ok
relative_file() {
	local out
	out=$(cd "$TMP" && "$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file=jobs.ndjson show j3 --json) &&
		python3 -c 'import json, sys; assert json.loads(sys.argv[1])["job"] == "j3"' "$out" ||
		{ echo "$out" | head; return 1; }
}
check "tracer -o file=RELATIVE: the file under the working directory" relative_file

echo "== tracer show JOB: one job across its steps and nodes"
python3 "$TOP/tests/cli/jobsteps.py" "$TMP/template.ndjson" "$TMP/steps.ndjson" ||
	fail "jobsteps.py"
stj() { "$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file="$TMP/steps.ndjson" "$@"; }
# view_is ARGS -- PYTHON: tracer show ARGS --json, checked by the Python
# expression (v: the object), and valid against the summary schema
view_is() {
	local args=() out
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	out=$(stj show "${args[@]}" --json) || return 1
	python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout); print()' \
		<<<"$out" >"$TMP/view.ndjson" || return 1
	python3 "$TOP/tests/validate_summary.py" "$TMP/view.ndjson" >/dev/null ||
		{ python3 "$TOP/tests/validate_summary.py" "$TMP/view.ndjson"; return 1; }
	python3 -c "import json, sys; v = json.load(sys.stdin); ok = ($1); print(json.dumps(v)[:3000]) if not ok else None; sys.exit(0 if ok else 1)" <<<"$out"
}
check "batch + 2 srun steps on one node: the allocation once, CPU of all steps" view_is 7001 -- \
	'v["scope"] == "job" and len(v["steps"]) == 3 and len(v["hosts"]) == 1 and
	 v["identity"]["allocation"]["cpus"] == 4 and v["totals"]["cpu_s"] == 1000 and
	 abs(v["cpu_efficiency"] - 1000 / (4 * 1000)) < 1e-9 and v["wall_s"] == 1000 and
	 v["memory"]["peak_bytes"] == 3 << 30 and abs(v["memory"]["efficiency"] - 3 / 8) < 1e-9 and
	 v["state"] == "FAILED" and v["exit"]["code"] == 2 and
	 [s["step_id"] for s in v["steps"]] == ["batch", "0", "1"] and
	 [f["id"] for f in v["flags"]].count("memory_overallocated") == 1'
check "two nodes: CPUs of each node once, the largest node peak" view_is 7002 -- \
	'v["identity"]["allocation"]["cpus"] == 4 and v["identity"]["allocation"]["nodes"] == 2 and
	 v["host"]["hostname"] == "n1,n2" and v["totals"]["cpu_s"] == 600 and
	 abs(v["cpu_efficiency"] - 600 / (4 * 600)) < 1e-9 and
	 v["memory"]["peak_bytes"] == 3 << 30 and
	 [(h["hostname"], h["alloc_cpus"], h["steps"]) for h in v["hosts"]] == [("n1", 2, 2), ("n2", 2, 1)]'
check "--node n2: that node's part" view_is 7002 --node n2 -- \
	'len(v["steps"]) == 1 and v["host"]["hostname"] == "n2" and v["totals"]["cpu_s"] == 290'
check "JOB.STEP: one step, itself" view_is 7001.0 -- \
	'"scope" not in v and v["identity"]["step_id"] == "0" and v["totals"]["cpu_s"] == 400'
check "JOB.STEP --node: the step on that node" view_is 7002.0 --node n1 -- \
	'"scope" not in v and v["host"]["hostname"] == "n1" and v["totals"]["cpu_s"] == 300'
check "an array task is a job of its own" view_is 7011 -- \
	'len(v["steps"]) == 1 and v["identity"]["job_id"] == "7011" and v["totals"]["cpu_s"] == 50'
steps_table() {
	local out
	out=$(stj show 7001) || return 1
	grep -q '^STEPS (3 on 1 node(s), UTC)$' <<<"$out" &&
		[ "$(grep -A4 '^STEPS' <<<"$out" | awk 'NR > 2 {print $1, $2, $NF}' | tr '\n' '|')" = \
			"batch n1 COMPLETED|0 n1 COMPLETED|1 n1 FAILED|" ] &&
		grep -q '^Process trees: one per step (tracer show 7001.STEP \[--node HOST\])$' <<<"$out" &&
		[ "$(wc -l <<<"$out")" -le 60 ] || { echo "$out"; return 1; }
}
check "tracer show JOB: the steps table, on one screen" steps_table
view_html() { stj show 7002 --html "$TMP/view.html" && grep -q 'n1,n2' "$TMP/view.html"; }
check "tracer show JOB --html: the job view" view_html
no_part() {
	local out err rc
	out=$(stj show 7001 --node nowhere 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
	[ $rc = 1 ] && [ -z "$out" ] && [ "$err" = "tracer: no job 7001 on nowhere in $TMP/steps.ndjson" ] ||
		{ echo "rc $rc: $out / $err"; return 1; }
}
check "tracer show JOB --node NOWHERE: no such part" no_part

echo "== tracer jobs: one line per job, sacct's selection and output options"
# jobs_p ARGS...: tracer jobs -P ARGS, the lines joined with spaces
jobs_p() { stj jobs -P "$@" | tr '\n' ' '; }
check "one line per job; array tasks as JOBID_TASK" test "$(jobs_p -n --format=JobID)" = \
	"7001 7002 7010_1 7010_2 "
check "--steps: one line per step and node (sacct without -X)" test \
	"$(jobs_p -n --format=JobID,NodeList --steps -j 7001,7002)" = \
	"7001.batch|n1 7001.0|n1 7001.1|n1 7002.batch|n1 7002.0|n1 7002.0|n2 "
check "-X: one line per job (the default)" test "$(jobs_p -n -X -o JobID -j 7002)" = "7002 "
check "-P: sacct's default fields, | between, none at the end" test \
	"$(stj jobs -P -j 7001)" = "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode
7001|align|debug|proj1|4|FAILED|2:0"
check "--format: the job's numbers as sacct prints them" test \
	"$(jobs_p -n --format=JobID,AllocCPUS,Elapsed,TotalCPU,ReqMem,MaxRSS,NodeList,CPUEff,MemEff -j 7001,7002)" = \
	"7001|4|00:16:40|00:16:40|8G|3145728K|n1|25.00%|37.50% 7002|4|00:10:00|00:10:00|4G|3145728K|n1,n2|25.00%|75.00% "
check "-j 7001.1 --steps: one step" test "$(jobs_p -n -o JobID,State,ExitCode -j 7001.1 --steps)" = "7001.1|FAILED|2:0 "
check "-j ARRAYJOB: every task; -j ARRAYJOB_TASK: one" test \
	"$(jobs_p -n -o JobID -j 7010) / $(jobs_p -n -o JobID -j 7010_2)" = "7010_1 7010_2  / 7010_2 "
check "--state: the job's state" test "$(jobs_p -n -o JobID -s F)" = "7001 "
check "--state --steps: the step's state" test "$(jobs_p -n -o JobID -s F --steps)" = "7001.1 "
check "-A ACCOUNT" test "$(jobs_p -n -o JobID -A proj2)" = "7010_1 7010_2 "
check "--partition" test "$(jobs_p -n -o JobID --partition debug,long -j 7001)" = "7001 "
check "--partition (none of them)" test "$(jobs_p -n -o JobID --partition long)" = ""
check "-N HOST: the jobs' parts on that node" test "$(jobs_p -n -o JobID,NodeList,TotalCPU -N n2)" = \
	"7002|n2|00:04:50 7010_2|n2|00:01:00 "
check "Start and End in local time (TZ)" test \
	"$(TZ=UTC jobs_p -n -o Start,End -j 7001) $(TZ=Asia/Tokyo jobs_p -n -o Start -j 7001)" = \
	"2026-01-12T10:00:00|2026-01-12T10:16:40  2026-01-12T19:00:00 "
check "-S without a zone: local time; with Z: UTC" test \
	"$(TZ=Asia/Tokyo jobs_p -n -o JobID -S 2026-01-12T19:50) $(TZ=Asia/Tokyo jobs_p -n -o JobID -S 2026-01-12T10:50Z)" = \
	"7010_1 7010_2  7010_1 7010_2 "
padded() {
	local out
	out=$(stj jobs --format=JobID,State -j 7001,7002) &&
		[ "$out" = "JobID State
----- ---------
7001  FAILED
7002  COMPLETED" ] || { echo "$out"; return 1; }
}
check "--format without -P: padded columns under a rule" padded
check "--format with an unknown field" usage_error \
	"tracer jobs: --format: unknown field \"Bogus\" (fields: $(stj jobs --help | sed -n 's/.*--format FIELD\[,...\]  these columns, by sacct.s names: //p' | head -c 0)JobID, JobName, User, Account, Partition, QOS, State, ExitCode, Elapsed, TotalCPU, AllocCPUS, ReqMem, MaxRSS, NodeList, Start, End, Submit, CPUEff, MemEff, Flags, Cost, Job)" \
	stj jobs --format=JobID,Bogus
json_views() {
	stj jobs --json -j 7001 | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert len(v) == 1 and v[0]["scope"] == "job" and len(v[0]["steps"]) == 3, v
assert v[0]["identity"]["allocation"]["cpus"] == 4
'
}
check "--json: the job views" json_views

echo "== tracer report: a job's allocation once per node"
grep '"job_id":"7001"' "$TMP/steps.ndjson" >"$TMP/job7001.ndjson"
report_as_view() {
	local rep view
	rep=$("$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file="$TMP/job7001.ndjson" \
		report --since 5200w --json) &&
		view=$(stj show 7001 --json) &&
		python3 -c '
import json, sys
r, v = json.loads(sys.argv[1]), json.loads(sys.argv[2])
g = r["groups"][0]
ok = (r["jobs"] == 1 and g["jobs"] == 1 and len(r["groups"]) == 1 and
      abs(g["cpu_efficiency"] - v["cpu_efficiency"]) < 1e-9 and
      abs(g["memory_efficiency"] - v["memory"]["efficiency"]) < 1e-9 and
      g["core_s"] == 4 * 1000)
sys.exit(0 if ok else print(r, v["cpu_efficiency"], v["memory"]["efficiency"]) or 1)' "$rep" "$view"
}
check "batch + 2 srun steps: the report's efficiency is the job view's" report_as_view
report_selects() {
	stj report --since 5200w --json -j 7002 -N n2 | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["jobs"] == 1 and r["groups"][0]["cpu_s"] == 290 and r["groups"][0]["core_s"] == 2 * 585, r'
}
check "tracer report -j JOB -N HOST: that job's part on that node" report_selects
check "tracer report -S: one time grammar" usage_error \
	'tracer report: -S: "7d" is not a time (now-1day, today, 2026-11-22T06:30, ...)' stj report -S 7d

echo "== tracer show: the job's notes, then at most 2 on tools (--tools: all)"
python3 - "$TMP/template.ndjson" "$TMP/notes.ndjson" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).readline())
s["job"] = "jn"
note = lambda i, tool=None: dict({"id": "io_bound", "severity": "info", "thresholds": {},
                                  "message": f"note {i} of {tool or 'the job'}"},
                                 **({"tool": tool} if tool else {}))
# a tool's note first: the job's own still come first
s["flags"] = [note(1, "t1"), note(1), note(2, "t2"), note(3, "t3"), note(2),
              note(4, "t4"), note(5, "t5"), note(6, "t6")]
open(sys.argv[2], "w").write(json.dumps(s) + "\n")
PY
notes_of() { "$BUILD/tracer" -o socket="$TMP/no-daemon.sock" -o file="$TMP/notes.ndjson" show "$@" jn | grep -E '^  (\* [Nn]ote|[0-9]+ more notes)'; }
check "tracer show: the job's notes, 2 on tools, how many more" test "$(notes_of | tr '\n' '|')" = \
	"  * Note 1 of the job. [info io_bound]|  * Note 2 of the job. [info io_bound]|  * note 1 of t1. [info io_bound]|  * note 2 of t2. [info io_bound]|  4 more notes on tools (--tools shows them)|"
check "tracer show --tools: every note" test "$(notes_of --tools | grep -c '^  \* [Nn]ote')" = 8

finish
