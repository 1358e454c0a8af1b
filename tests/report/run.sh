#!/bin/bash
# run.sh BUILD - `tracer report` over a local archive: real summaries
# recorded by tracer-wrap (standalone), spread over the file sink's file
# and its rotated files (FILE.2 older than the window, FILE.1 with flags
# and cost as the analysis fields give them), checked against the same
# sums computed independently (expect.py) for every --by, in JSON and
# CSV; the table; bad arguments.  Then --clickhouse: tracerd delivers to
# a private ClickHouse server (started and stopped by pid) and the report
# from ClickHouse equals the one from the archive.  Needs root for that
# part (tracerd).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-report.XXXXXX)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
cleanup() {
	stop_tracerd
	ch_stop
	remove_suite_tmp
}
trap cleanup EXIT
for b in tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed"; exit 1; }
A=$TMP/jobs.ndjson
REC=$TMP/recorded.ndjson
rep() { "$BUILD/tracer" -o file="$A" report "$@"; }

echo "== recording jobs"
wrap() { ASAN_OPTIONS=detect_leaks=0 "$BUILD/tracer-wrap" --standalone -o file="$REC" "$@"; }
spin='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
ok=0
wrap --run r1 --pipeline rnaseq --task align -- sh -c "$spin" && ok=$((ok + 1))
wrap --run r1 --pipeline rnaseq --task align -- sh -c "$spin; $spin" && ok=$((ok + 1))
wrap --run r1 --pipeline rnaseq --task 'sort, "fast"' -- sh -c "$spin; exit 3"; [ $? = 3 ] && ok=$((ok + 1))
wrap --run r2 --pipeline wgs --task call -- sh -c "dd if=/dev/zero of=/dev/null bs=1M count=200 2>/dev/null; $spin" && ok=$((ok + 1))
wrap --run r2 --pipeline wgs --task call -- sh -c "$spin" && ok=$((ok + 1))
check "5 jobs recorded by tracer-wrap" test "$ok" = 5 -a "$(grep -c . "$REC" 2>/dev/null)" = 5

# the archive: FILE.2 oldest (one job 30 days old), FILE.1 (two jobs with
# flags and cost, and a line that is not JSON), FILE (the rest)
python3 - "$REC" "$A" <<'PY'
import json, sys, time
s = [json.loads(l) for l in open(sys.argv[1])]
a = sys.argv[2]
old = dict(s[0], job="old-1")
old["end_ns"] = str(int((time.time() - 30 * 86400) * 1e9))
open(a + ".2", "w").write(json.dumps(old) + "\n")
with open(a + ".1", "w") as f:
    for x in s[:2]:
        x = dict(x, flags=[{"id": "idle_allocation", "severity": "warning"}],
                 cost={"total": 1.25, "unused": 0.5, "currency": "USD"})
        f.write(json.dumps(x) + "\n")
    f.write("{not json\n")
with open(a, "w") as f:
    for x in s[2:]:
        f.write(json.dumps(x) + "\n")
PY

echo "== totals by group, against independent sums"
for by in task tool user pipeline run; do
	rep --by "$by" --json >"$TMP/r.$by.json" 2>"$TMP/r.$by.err"
	check "--by $by --json: jobs, failures, CPU, wall, efficiency, I/O, flags, cost" \
		python3 "$TOP/tests/report/expect.py" "$TMP/r.$by.json" 604800 "$by" "$A.2" "$A.1" "$A"
done
rep --json >"$TMP/r.all.json" 2>/dev/null
check "no --by: one group of every job of the last 7 days" \
	python3 "$TOP/tests/report/expect.py" "$TMP/r.all.json" 604800 all "$A.2" "$A.1" "$A"
check "the rotated files are read (3 files), the unreadable line said on stderr" \
	sh -c "grep -q '\"files\":	3' $TMP/r.task.json && grep -q '1 unreadable line(s) skipped' $TMP/r.task.err"
rep --since 60d --by task --json >"$TMP/r.60d.json" 2>/dev/null
check "--since 60d takes the job of 30 days ago too" \
	python3 "$TOP/tests/report/expect.py" "$TMP/r.60d.json" 5184000 task "$A.2" "$A.1" "$A"
# the newest job may have ended less than 1 s ago on a fast machine: wait
# until it is 1.5 s old (by the clock, not a sleep)
newest_end=$(cat "$A" "$A.1" "$A.2" | python3 -c '
import json, sys
e = []
for l in sys.stdin:
    try:
        e.append(int(json.loads(l)["end_ns"]))
    except ValueError:
        pass
print(max(e))')
older_than_1s() { [ "$(date +%s%N)" -gt $((newest_end + 1500000000)) ]; }
wait_until 10 "the newest job to be 1.5 s old" older_than_1s
check "--since 1s: no job" sh -c "$BUILD/tracer -o file=$A report --since 1s --json 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r[\"jobs\"] == 0 and r[\"groups\"] == [] else 1)'"

echo "== CSV and the table"
rep --by task --csv >"$TMP/r.csv" 2>/dev/null
check "--csv: RFC 4180 (a task name with a comma and quotes), the same numbers as --json" python3 - "$TMP/r.csv" "$TMP/r.task.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
groups = {g["task"]: g for g in json.load(open(sys.argv[2]))["groups"]}
assert {r["task"] for r in rows} == set(groups), (rows, groups)
assert 'sort, "fast"' in groups
for r in rows:
    g = groups[r["task"]]
    assert int(r["jobs"]) == g["jobs"] and int(r["failed"]) == g["failed"], (r, g)
    assert abs(float(r["cpu_s"]) - g["cpu_s"]) <= 1e-5 * max(1, g["cpu_s"]), (r, g)
    assert (r["cost"] == "") == ("cost" not in g), (r, g)
    assert r["flags"] == ";".join(f"{k}:{v}" for k, v in g["flags"].items()), (r, g)
print(f"{len(rows)} rows")
PY
rep --by task --wide >"$TMP/r.txt" 2>/dev/null
check "the table: a header, one line per task, flags and cost where summaries have them" \
	sh -c "grep -q '^task .*JOBS.*FAILED.*CPU.*EFF.*COST.*FLAGS' $TMP/r.txt && grep -q '^align .* 2.50 *idle_allocation x2\$' $TMP/r.txt && grep -q '^call ' $TMP/r.txt && grep -q '^sort, \"fast\" ' $TMP/r.txt"
rep --by tool >"$TMP/r.tool.txt" 2>/dev/null
check "--by tool: the SPAN column (CPU over the tool's own spans)" grep -q '^TOOL .* SPAN ' "$TMP/r.tool.txt"

echo "== files rotated by the file sink itself"
R=$TMP/rot/jobs.ndjson
mkdir -p "$TMP/rot"
for t in one two three four; do
	ASAN_OPTIONS=detect_leaks=0 "$BUILD/tracer-wrap" --standalone -o file="$R" \
		-o file_max_bytes=1 -o file_keep=10 --task "$t" -- true
done
"$BUILD/tracer" -o file="$R" report --by task --json >"$TMP/r.rot.json" 2>/dev/null
check "4 jobs in FILE, FILE.1 .. FILE.3 after rotation: all 4 reported" sh -c "
	test -s $R.3 && python3 $TOP/tests/report/expect.py $TMP/r.rot.json 604800 task $R.3 $R.2 $R.1 $R &&
	grep -q '\"jobs\":	4' $TMP/r.rot.json && grep -q '\"files\":	4' $TMP/r.rot.json"

echo "== bad arguments, no archive"
rep --by host >/dev/null 2>"$TMP/bad1"; rc1=$?
rep --since 7x >/dev/null 2>"$TMP/bad2"; rc2=$?
check "--by host and --since 7x: exit 2 with the reason" \
	sh -c "[ $rc1 = 2 ] && [ $rc2 = 2 ] && grep -q 'expected run, task, tool, user or pipeline' $TMP/bad1 && grep -q 'expected a duration' $TMP/bad2"
out=$("$BUILD/tracer" -o file="$TMP/none.ndjson" report 2>&1); rc=$?
check "no archive: no job, exit 0" sh -c "[ $rc = 0 ] && echo '$out' | grep -q '0 job(s) in 0 file(s)'"

# REPORT_CH_TCP, REPORT_CH_HTTP: other ports (another run may hold these)
RCH_TCP=${REPORT_CH_TCP:-18220} RCH_HTTP=${REPORT_CH_HTTP:-18221}
echo "== --clickhouse: the same from ClickHouse (Debian's server, private, ports $RCH_TCP-$RCH_HTTP)"
CH_OK=0
if [ "$(id -u)" != 0 ]; then
	fail "--clickhouse needs root (tracerd delivers to ClickHouse)"
else
	ch_up "$TMP/ch" "$RCH_TCP" "$RCH_HTTP"
	if "$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:$RCH_HTTP/ datalake migrate \
		--dir "$TOP/contrib/clickhouse/migrations" >/dev/null; then
		CH_OK=1
	else
		fail "the datalake's schema did not load (tracer datalake migrate)"
	fi
fi
if [ "$CH_OK" = 1 ] && start_tracerd rep -o sinks=file,clickhouse -o spool_dir="$TMP/spool" \
	-o clickhouse_url=http://127.0.0.1:$RCH_HTTP/ -o retry_max_ms=2000; then
	for i in 1 2 3 4 5 6; do
		tr_cli run --name "task-$((i % 3))" --pipeline "p$((i % 2))" -- \
			/bin/sh -c "$spin; /bin/true; exit \$(( $i == 4 || $i == 5 ? 2 : 0 ))" >/dev/null 2>&1
	done
	ch6() { [ "$(clickhouse-client --port $RCH_TCP -q 'SELECT count() FROM tracer.jobs FINAL')" = 6 ]; }
	wait_until 60 "the 6 jobs in ClickHouse" ch6
	for by in task tool user pipeline run; do
		"$BUILD/tracer" -o file="$TRACERD_FILE" report --by "$by" --json >"$TMP/f.$by.json" 2>/dev/null
		"$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:$RCH_HTTP/ report --clickhouse \
			--by "$by" --json >"$TMP/c.$by.json" 2>"$TMP/c.$by.err"
		check "--clickhouse --by $by: the same groups and sums as the local archive" \
			sh -c "python3 $TOP/tests/report/same.py $by $TMP/f.$by.json $TMP/c.$by.json || { cat $TMP/c.$by.err; false; }"
	done
	# the flags compared above are some (from each summary's flag_ids)
	has_flags() { python3 -c 'import json, sys
n = sum(sum(g["flags"].values()) for g in json.load(open(sys.argv[1]))["groups"])
sys.exit(0 if n > 0 else f"no flag in {sys.argv[1]}")' "$TMP/c.pipeline.json"; }
	check "--clickhouse --by pipeline: the jobs' flags, counted as the archive counts them" has_flags
	# rows from before version 3 (no flag_ids): their flags from
	# tracer.flags, beside the others' from their rows
	chq_r() { clickhouse-client --port $RCH_TCP -q "$1"; }
	mutated() { [ "$(chq_r "SELECT count() FROM system.mutations WHERE table = 'jobs' AND is_done = 0")" = 0 ]; }
	chq_r "ALTER TABLE tracer.jobs UPDATE flag_ids = emptyArrayString() WHERE pipeline = 'p0'" &&
		wait_until 30 "the mutation done" mutated
	p0_old() {
		local v
		v=$(chq_r "SELECT countIf(flags > 0 AND empty(flag_ids) AND pipeline = 'p0') > 0, countIf(notEmpty(flag_ids)) > 0 FROM tracer.jobs")
		[ "$v" = "$(printf '1\t1')" ] || { echo "flagged p0 rows without ids, rows with ids: $v"; return 1; }
	}
	check "p0's rows without flag_ids now, the others with theirs" p0_old
	for by in pipeline user; do
		"$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:$RCH_HTTP/ report --clickhouse \
			--by "$by" --json >"$TMP/o.$by.json" 2>"$TMP/o.$by.err"
		check "--clickhouse --by $by, old rows and new: the same flags and sums as the archive" \
			sh -c "python3 $TOP/tests/report/same.py $by $TMP/f.$by.json $TMP/o.$by.json || { cat $TMP/o.$by.err; false; }"
	done
	# the selection applies as to the archive: a report of one user, one
	# node or a time is not the site's
	HOST=$(python3 -c 'import socket; print(socket.gethostname())')
	for sel in "-u nobody" "-u root -N $HOST" "-E now-1days"; do
		for by in task tool; do
			# shellcheck disable=SC2086 # sel: the options, split
			"$BUILD/tracer" -o file="$TRACERD_FILE" report --by "$by" $sel --json >"$TMP/fs.json" 2>/dev/null
			# shellcheck disable=SC2086
			"$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:$RCH_HTTP/ report --clickhouse \
				--by "$by" $sel --json >"$TMP/cs.json" 2>"$TMP/cs.err"
			check "--clickhouse --by $by $sel: the same groups and sums as the local archive's" \
				sh -c "python3 $TOP/tests/report/same.py $by $TMP/fs.json $TMP/cs.json || { cat $TMP/cs.err; false; }"
		done
	done
	"$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:$((RCH_HTTP + 1))/ report --clickhouse >/dev/null 2>"$TMP/c.down"
	rc=$?
	check "--clickhouse with no server: exit 1, saying so" sh -c "[ $rc = 1 ] && grep -q 'tracer report: ClickHouse: ' $TMP/c.down"
	stop_tracerd
fi
ch_stop
validate_summaries "the recorded summaries are valid against docs/summary.schema.json" --min 5 "$REC"
finish
