#!/bin/bash
# run.sh BUILD - tracerd under stress on a shared node (root, real
# kernel): a job that ends with thousands of live processes does not
# freeze the loop; a leader that exits before its threads is neither
# lost nor waited for forever; a restart resumes open jobs; one job
# cannot fill the kernel's process table for everyone; a crash between a
# job's close and its summary's spooling loses nothing.
#
# run.sh BUILD --memory: the parts whose memory and threads a sanitizer
# build has something to look at (make test runs it on the ASan build):
# the close of 3,000 live processes under status requests, the SIGKILL
# restart that rebuilds 500 processes from the journal, the process
# table at its caps, the spool writer held across a SIGKILL.  The zombie
# leader, the journal's race with a SIGKILL (tries until it lands) and
# the SIGTERM restart (the SIGKILL restart's path, plus a clean journal
# write) only check counts on those same paths: the plain run has them.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
DIR=$TOP/tests/resilience
TMP=$(mktemp -d /tmp/tracer-res.XXXXXX)
MEMORY_ONLY=
[ "${2:-}" = --memory ] && MEMORY_ONLY=1
. "$TOP/tests/lib.sh"

PROBE_PID=
TEST_USER=
cleanup() {
	for f in "$TMP"/*.fifo; do [ -p "$f" ] && release "$f"; done
	if [ -n "$PROBE_PID" ]; then
		touch "$TMP/probe.stop"
		kill -TERM "$PROBE_PID" 2>/dev/null
		wait "$PROBE_PID" 2>/dev/null
	fi
	stop_tracerd
	[ -n "$TEST_USER" ] && userdel "$TEST_USER" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for h in holdkids spin tiny spawner; do
	[ -x "$H/$h" ] || { echo "FAIL: helper $H/$h missing (make all)"; exit 1; }
done
for c in python3 setpriv useradd userdel; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done

# release FIFO: every process blocked opening FIFO for reading goes on
# (a writer opens and closes it; nothing happens when nobody waits)
release() {
	python3 - "$1" <<'PY'
import os, sys
try:
    os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))
except OSError:
    pass
PY
}
# summary FIELD...: a field of the summary of the job in JOBFILE
sumfield() {
	python3 - "$TRACERD_FILE" "$1" "$2" <<'PY'
import json, sys
uid = open(sys.argv[2]).read().strip()
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [x for x in s if x["job"] == uid][-1]
for k in sys.argv[3].split("."):
    s = s[int(k)] if isinstance(s, list) else s[k]
print(json.dumps(s))
PY
}
# toolprocs JOBFILE TOOL: processes of TOOL in the job's summary (0: absent)
toolprocs() {
	python3 - "$TRACERD_FILE" "$1" "$2" <<'PY'
import json, sys
uid = open(sys.argv[2]).read().strip()
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [x for x in s if x["job"] == uid][-1]
print(sum(t["processes"] for t in s["tools"] if t["tool"] == sys.argv[3]))
PY
}
# expect DESC GOT OP WANT: a numeric comparison (python operator)
expect() {
	if python3 -c "import sys; sys.exit(0 if float('$2') $3 float('$4') else 1)" 2>/dev/null; then
		pass "$1 ($2 $3 $4)"
	else
		fail "$1: got $2, want $3 $4"
	fi
}

start_tracerd res || exit 1

echo "== frozen loop: a job ends with 3,000 live processes, 20 of them leaders gone before their threads"
mkfifo "$TMP/hold.fifo"
# the probe's replies that show a job closing were answered between the
# job's end and its summary: the loop answers while it settles the 3,000
# (a close done in one turn of the loop shows none); each request has its
# own deadline of 30 s
python3 "$DIR/probe.py" "$TRACERD_SOCK" "$TMP/probe.out" "$TMP/probe.stop" \
	--during 's["jobs"]["closing"] >= 1' &
PROBE_PID=$!
wait_until 30 "the status probe's first reply" test -e "$TMP/probe.out.ready"
trun "$TMP/j.hold" -- "$H/holdkids" "$TMP/hold.fifo" 3000 20 >"$TMP/hold.last" 2>"$TMP/hold.err"
wait_until 60 "the summary of the job with 3,000 live processes" summary_of_job "$TMP/j.hold"
touch "$TMP/probe.stop"
wait_until 60 "the status probe to end" proc_gone "$PROBE_PID"
wait "$PROBE_PID"; PROBE_PID=
release "$TMP/hold.fifo"
probe() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$TMP/probe.out" "$1"; }
echo "    status round trips (information; make bench measures them): $(cat "$TMP/probe.out")"
expect "tracer status answered while the job closed (replies showing it closing)" "$(probe during)" ">=" 3
expect "no status request went unanswered (30 s each)" "$(probe failed)" "==" 0
expect "every held process outlived the job" "$(sumfield "$TMP/j.hold" processes.outlived)" "==" 3000
expect "no exit record counted lost" "$(sumfield "$TMP/j.hold" drops.exit_records_lost)" "==" 0
last=$(cat "$TMP/hold.last")
[ -n "$last" ] && wait_until 30 "the held processes to exit once released" not test -d "/proc/$last"

if [ -z "$MEMORY_ONLY" ]; then
	echo "== a leader gone before its thread: neither lost nor waited for forever"
	mkfifo "$TMP/zl.fifo"
	"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.zl" -- \
		"$H/holdkids" "$TMP/zl.fifo" 1 1 300 wait >"$TMP/zl.pid" &
	rpid=$!
	wait_until 10 "tracer run to register and holdkids to fork" test -s "$TMP/zl.pid"
	kill -KILL "$rpid"; wait "$rpid" 2>/dev/null
	release "$TMP/zl.fifo"
	# the zombie leader's thread spins 300 ms of CPU; then the 1 s grace
	wait_until 30 "the summary of the job whose last process was a zombie leader" summary_of_job "$TMP/j.zl"
	expect "its exit record came: no process outlived" "$(sumfield "$TMP/j.zl" processes.outlived)" "==" 0
	expect "none counted lost" "$(sumfield "$TMP/j.zl" drops.exit_records_lost)" "==" 0
	expect "the thread's CPU is the job's (s)" "$(sumfield "$TMP/j.zl" totals.cpu_s)" ">=" 0.25
fi

stop_tracerd

echo "== SIGKILL and restart mid-job: 500 short processes run while tracerd is down"
start_tracerd rs || exit 1
# the job: waits for go, runs 500 tiny processes, waits for finish
job_script() {
	echo ". '$TOP/tests/lib.sh'; poll_until 60 test -e '$TMP/$1.go' || exit 9
	'$H/spawner' '$TMP/truth.$1' ${2:-0} '$H/tiny' 0 || exit 8
	touch '$TMP/$1.spawned'; poll_until 60 test -e '$TMP/$1.finish' || exit 9"
}
"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.rs" -- \
	/bin/bash -c "$(job_script rs 500)" &
rpid=$!
wait_until 10 "tracer run to register" test -s "$TMP/j.rs"
kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
touch "$TMP/rs.go"
wait_until 60 "500 processes to run while tracerd is down" test -e "$TMP/rs.spawned"
start_tracerd rs || exit 1
touch "$TMP/rs.finish"
wait "$rpid"; rc=$?
check "the job's command ran to its end (exit 0)" test "$rc" = 0
if wait_until 30 "the summary of the job resumed after SIGKILL" summary_of_job "$TMP/j.rs"; then
	expect "the 500 processes of the gap are in the summary" "$(toolprocs "$TMP/j.rs" tiny)" "==" 500
	expect "one gap marked" "$(sumfield "$TMP/j.rs" 'gaps' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" "==" 1
	gs=$(sumfield "$TMP/j.rs" gaps.0.start_ns | tr -d '"'); ge=$(sumfield "$TMP/j.rs" gaps.0.end_ns | tr -d '"')
	expect "the gap has a length (ns)" "$((ge - gs))" ">" 0
	check "the resumed job is marked incomplete" test "$(sumfield "$TMP/j.rs" incomplete)" = true
	check "gap times are ISO-8601 UTC" python3 -c "import json, sys; sys.exit(0 if json.loads(sys.argv[1]).endswith('Z') else 1)" "$(sumfield "$TMP/j.rs" gaps.0.start)"
fi

if [ -z "$MEMORY_ONLY" ]; then
	echo "== SIGKILL just after processes start: the journal has not counted them"
	# The journal is rewritten every second; processes started after its last
	# write and alive at the restart are counted once, by the new tracerd
	# (they once made processes.total too small and processes.outlived wrap
	# around to 2^64-5).  Tries until the SIGKILL lands between the processes'
	# start and the next journal write, which the journal itself shows.
	journal_count() { # JOBFILE: processes.total the journal holds for the job
		python3 - "$TMP/tracerd-state" "$(cat "$1")" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/journal-*.json"):
    for j in json.load(open(f)).get("jobs", []):
        if j.get("job") == sys.argv[2]:
            print(j["counts"][0])
PY
	}
	journal_says() { test "$(journal_count "$1")" = "$2"; }
	five_pids() { test "$(wc -l <"$TMP/ol.pids" 2>/dev/null)" = 5; }
	stop_tracerd # the suite's own daemon, started again below
	mkfifo "$TMP/ol.fifo"
	reached=
	for try in 1 2 3 4 5; do
		rm -f "$TMP/ol.go" "$TMP/ol.pids" "$TMP/j.ol"
		start_tracerd ol || break
		# the job forks nothing until go (read -t on a silent fifo is a
		# builtin wait), then 5 sleepers, and waits for them
		"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.ol" -- \
			/bin/bash -c "exec 9<>'$TMP/ol.fifo'; until [ -e '$TMP/ol.go' ]; do read -t 0.02 -u 9; done
			for i in 1 2 3 4 5; do sleep 300 & p=\"\$p \$!\"; done
			printf '%s\\n' \$p > '$TMP/ol.pids'; wait" &
		rpid=$!
		wait_until 10 "tracer run to register" test -s "$TMP/j.ol" || break
		wait_until 10 "the journal to hold the job" journal_says "$TMP/j.ol" 1 || break
		touch "$TMP/ol.go"
		poll_until 10 five_pids
		kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
		if [ "$(journal_count "$TMP/j.ol")" = 1 ]; then reached=1; fi
		start_tracerd ol || break
		for p in $(cat "$TMP/ol.pids" 2>/dev/null); do kill -TERM "$p"; done
		wait "$rpid"
		[ -n "$reached" ] && break
		echo "    (try $try: the journal was rewritten before the SIGKILL; again)"
		wait_until 30 "the summary of the try" summary_of_job "$TMP/j.ol"
		stop_tracerd
	done
	for p in $(cat "$TMP/ol.pids" 2>/dev/null); do kill -TERM "$p" 2>/dev/null; done # after a failure
	check "the SIGKILL landed before the journal counted the 5 processes" test -n "$reached"
	if [ -n "$reached" ] && wait_until 30 "the summary of the job" summary_of_job "$TMP/j.ol"; then
		expect "processes.total: the command and its 5 sleepers" "$(sumfield "$TMP/j.ol" processes.total)" "==" 6
		expect "processes.exited" "$(sumfield "$TMP/j.ol" processes.exited)" "==" 6
		expect "processes.outlived" "$(sumfield "$TMP/j.ol" processes.outlived)" "==" 0
	fi
	stop_tracerd
	start_tracerd rs || exit 1

	echo "== SIGTERM and start again (systemctl restart): the open job is resumed"
	"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.rt" -- \
		/bin/bash -c "$(job_script rt 5)" &
	rpid=$!
	wait_until 10 "tracer run to register" test -s "$TMP/j.rt"
	stop_tracerd keep
	check "no summary written at SIGTERM" not summary_of_job "$TMP/j.rt"
	touch "$TMP/rt.go"
	wait_until 60 "5 processes to run while tracerd is down" test -e "$TMP/rt.spawned"
	start_tracerd rs || exit 1
	touch "$TMP/rt.finish"
	wait "$rpid"
	if wait_until 30 "the summary of the job resumed after SIGTERM" summary_of_job "$TMP/j.rt"; then
		expect "the processes of the restart are in the summary" "$(toolprocs "$TMP/j.rt" tiny)" "==" 5
		expect "one gap marked" "$(sumfield "$TMP/j.rt" 'gaps' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" "==" 1
	fi
fi
stop_tracerd

echo "== table full: one user's job keeps 1,100 processes alive, another user's job is still recorded"
TEST_USER=trres$$
useradd -M -N -r -s /usr/sbin/nologin "$TEST_USER" || { fail "useradd $TEST_USER"; TEST_USER=; }
id nobody >/dev/null 2>&1 || fail "no 'nobody' account for the second user"
U=$TMP/u
mkdir "$U" && chmod 0777 "$U" && chmod 0711 "$TMP"
start_tracerd cap -o max_procs=1024 -o max_procs_per_job=256 || exit 1
as_user() { u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
# what the users run, copied where they can read it (user_copy)
{ UTRACER=$(user_copy "$BUILD/tracer") && UHOLD=$(user_copy "$H/holdkids") && UTINY=$(user_copy "$H/tiny"); } || exit 1
mkfifo -m 0666 "$U/a.fifo"
as_user "$TEST_USER" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run \
	--job-file "$U/j.a" -- "$UHOLD" "$U/a.fifo" 1100 0 0 wait >"$U/a.last" 2>"$U/a.err" &
apid=$!
wait_until 60 "the first user's job to fork its 1,100 processes" test -s "$U/a.last"
as_user nobody "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run \
	--job-file "$U/j.b" -- "$UTINY" 7 2>"$U/b.err"
wait_until 10 "the second user's job to be recorded" summary_of_job "$U/j.b" || sed 's/^/    /' "$U/b.err"
release "$U/a.fifo"
wait "$apid"
wait_until 30 "the summary of the job at its cap" summary_of_job "$U/j.a"
if summary_of_job "$U/j.b"; then
	expect "the second user's tool ran and was recorded" "$(sumfield "$U/j.b" tools.0.processes)" "==" 1
	expect "the second user's job lost nothing" "$(sumfield "$U/j.b" drops.events)" "==" 0
	check "the second user's job is complete" test "$(sumfield "$U/j.b" incomplete)" = false
fi
if summary_of_job "$U/j.a"; then
	expect "the job at its cap followed at most its cap" "$(sumfield "$U/j.a" processes.total)" "<=" 258
	expect "its further processes counted, not followed" "$(sumfield "$U/j.a" processes.over_cap)" ">=" 800
	check "the job at its cap is marked incomplete" test "$(sumfield "$U/j.a" incomplete)" = true
fi
last=$(cat "$U/a.last" 2>/dev/null)
[ -n "$last" ] && wait_until 30 "the held processes to exit once released" not test -d "/proc/$last"
stop_tracerd
echo "== SIGKILL after a job's close, before its summary is in the spool: the summary is not lost"
# TRACERD_TEST_HOLD_SPOOL (a test hook: docs/configuration.md) holds the
# spool writer before its write while the file exists: the kill lands
# between the close and the fsync, every time
touch "$TMP/hold"
export TRACERD_TEST_HOLD_SPOOL=$TMP/hold
start_tracerd ck || exit 1
unset TRACERD_TEST_HOLD_SPOOL
JOURNAL=$TMP/tracerd-state/journal-$(basename "$TRACERD_PINS").json
# journal_has WHERE JOBFILE: the job is in the journal's WHERE list (jobs: open, finished: closed)
journal_has() {
	python3 - "$JOURNAL" "$1" "$2" <<'PY'
import json, sys
uid = open(sys.argv[3]).read().strip()
j = json.load(open(sys.argv[1]))
sys.exit(0 if any(e["job"] == uid for e in j.get(sys.argv[2], [])) else 1)
PY
}
trun "$TMP/j.ck" -- "$H/tiny" 3
wait_until 10 "the spool writer to hold the job's summary" test -e "$TMP/hold.reached"
wait_until 10 "the journal to be written after the close" not journal_has jobs "$TMP/j.ck"
check "the closed job stays in the journal until its summary is spooled" journal_has finished "$TMP/j.ck"
sid=$(python3 -c "import json,sys; print([e['summary_id'] for e in json.load(open('$JOURNAL'))['finished']][0])")
kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
rm -f "$TMP/hold" "$TMP/hold.reached"
check "the summary was not written before the kill" not summary_of_job "$TMP/j.ck"
start_tracerd ck || exit 1
if wait_until 30 "the summary of the job closed before the SIGKILL" summary_of_job "$TMP/j.ck"; then
	check "it keeps the summary_id of the lost one" test "$(sumfield "$TMP/j.ck" summary_id)" = "\"$sid\""
	check "it is marked recovered" test "$(sumfield "$TMP/j.ck" recovered)" = true
	check "and incomplete" test "$(sumfield "$TMP/j.ck" incomplete)" = true
	expect "its exit status is the job's" "$(sumfield "$TMP/j.ck" exit.code)" "==" 3
	expect "its process count is the job's" "$(sumfield "$TMP/j.ck" processes.total)" ">=" 1
fi
wait_until 10 "the journal to forget the job once spooled" not journal_has finished "$TMP/j.ck"
stop_tracerd keep
start_tracerd ck || exit 1
trun "$TMP/j.ck2" -- "$H/tiny" 0
wait_until 10 "the summary of a job after the restart" summary_of_job "$TMP/j.ck2"
expect "the recovered summary is written once, not again at the next start" \
	"$(grep -c "\"job\":\"$(cat "$TMP/j.ck")\"" "$TRACERD_FILE")" "==" 1
stop_tracerd

for l in "$TMP"/*.log; do
	if grep -qiE "AddressSanitizer|LeakSanitizer|runtime error" "$l"; then
		fail "sanitizer report in $(basename "$l")"; sed 's/^/    /' "$l" | head -40
	fi
done
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	$(summary_files "$TMP")
finish
