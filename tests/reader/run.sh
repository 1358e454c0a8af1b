#!/bin/bash
# run.sh BUILD - the datalake read back for every user from any node:
# a real ClickHouse 18.16 (tests/delivery/clickhouse.sh) filled by a full
# tracerd's clickhouse sink with real `tracer run` jobs of two test users,
# then a tracerd in reader mode (no BPF, its own socket) that answers
# `tracer jobs`, `tracer show` and `tracer report` from it: each user sees
# only their own jobs, cannot read the datalake's credentials, and cannot
# query ClickHouse without them; root reads ClickHouse directly without
# tracerd.  Filter values that try SQL injection select nothing more.
# A query past datalake_max_memory fails on the server, saying so.
# The users and ClickHouse are made here and removed at the end.  Needs
# root and the services lock (flock /tmp/tracer-services.lock).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
CH_TCP=18611 CH_HTTP=18634
UA=tracer-ra
UB=tracer-rb
GRP=tracer-rg
READER_PID=

stop_reader() {
	[ -n "$READER_PID" ] || return 0
	kill -TERM "$READER_PID" 2>/dev/null
	if ! wait_until 10 "the reader (pid $READER_PID) to exit on SIGTERM" proc_gone "$READER_PID"; then
		kill -KILL "$READER_PID" 2>/dev/null
	fi
	wait "$READER_PID" 2>/dev/null
	READER_PID=
}
cleanup() {
	kill_owned
	stop_reader
	stop_tracerd
	ch_stop
	remove_test_users
	remove_suite_tmp
}
need_root
# the test users reach the reader's socket through it
suite_tmp reader
trap cleanup EXIT
need_built tracerd tracer
need_commands python3 curl
make_test_users "$GRP" "$UA" "$UB"
UTRACER=$(user_copy "$BUILD/tracer") || exit 1

echo "== ClickHouse: the default user has a password nobody outside root knows"
# root's alone from the start: the users' passwords are written into it
install -d -m 0700 "$TMP/ch" || { echo "FAIL: cannot make $TMP/ch"; exit 1; }
ADMIN_PW=adm-$$-$RANDOM$RANDOM
RW_PW=rw-$$-$RANDOM$RANDOM
(umask 077 && cat >"$TMP/ch/users.in.xml") <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password>$ADMIN_PW</password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default>
    <tracer_rw><password>$RW_PW</password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></tracer_rw></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP" "$TMP/ch/users.in.xml"
chq() { clickhouse-client --port "$CH_TCP" --password="$ADMIN_PW" --multiquery "$@"; }
check "the ClickHouse server is Debian's 18.16" ch_is_debian_1816
MIG=$TOP/contrib/clickhouse/migrations
check "schema v1 (migrations/001_v1.sql) loads" sh -c "clickhouse-client --port $CH_TCP --password='$ADMIN_PW' --multiquery < '$MIG/001_v1.sql'"
# the credentials: a root-only file, as tracer.conf's clickhouse_password_file
printf '%s\n' "$RW_PW" >"$TMP/chpw"
chmod 0600 "$TMP/chpw"
LAKE=(-o datalake=clickhouse -o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o clickhouse_user=tracer_rw
      -o clickhouse_password_file="$TMP/chpw")
# root's CLI on the datalake, with no tracerd at this socket
root_lake() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/nonexistent.ndjson" "${LAKE[@]}" "$@" 2>&1; }
v1_error() { local o; o=$(root_lake jobs --json); grep -q "schema version 1 has no summary column: run tracer datalake migrate" <<<"$o" || { echo "$o"; return 1; }; }
check "schema v1: tracer jobs of root says to migrate" v1_error
check "tracer datalake migrate brings it to version 4" sh -c "'$BUILD/tracer' ${LAKE[*]} datalake migrate --dir '$MIG' >/dev/null 2>&1 && '$BUILD/tracer' ${LAKE[*]} datalake status 2>&1 | grep -q '^schema version 4'"

echo "== jobs of A and B delivered by a full tracerd's clickhouse sink"
start_tracerd full -o sinks=file,clickhouse -o clickhouse_url="http://127.0.0.1:$CH_HTTP/" \
	-o clickhouse_user=tracer_rw -o clickhouse_password_file="$TMP/chpw" -o retry_max_ms=2000 || exit 1
MARK=ra-MARK-$$
BMARK=rb-MARK-$$
INJ="x' OR 1=1 --"
user_job() { # user_job USER NAME JOBFILE: a recorded job of USER
	as "$1" "$UTRACER" -o socket="$TRACERD_SOCK" run --name "$2" --job-file "$3" -- /bin/sh -c "exit 0"
}
user_job "$UA" "$MARK" "$TMP/$UA/a.job"
user_job "$UA" "$INJ" "$TMP/$UA/inj.job"
user_job "$UB" "$BMARK" "$TMP/$UB/b.job"
for f in "$TMP/$UA/a.job" "$TMP/$UA/inj.job" "$TMP/$UB/b.job"; do
	wait_until 30 "the summary of $f" summary_of_job "$f" || exit 1
done
A_JOB=$(cat "$TMP/$UA/a.job")
B_JOB=$(cat "$TMP/$UB/b.job")
rows_final() { [ "$(chq -q "SELECT count() FROM tracer.jobs FINAL WHERE task_name IN ('$MARK', '$BMARK', 'x\\' OR 1=1 --')")" = 3 ]; }
wait_until 60 "the 3 jobs in tracer.jobs FINAL" rows_final || exit 1
stop_tracerd

echo "== the summaries in the datalake, as tracerd wrote them"
with_summary() { [ "$(chq -q "SELECT count() FROM tracer.jobs FINAL WHERE summary != ''")" -ge 3 ]; }
check "the jobs have their summary in the datalake" with_summary

echo "== tracerd --reader: no BPF, its own socket, the credentials root's"
RSOCK=$TMP/reader.sock
RLOG=$TMP/reader.log
start_reader() {
	"$BUILD/tracerd" --reader -o socket="$RSOCK" -o rules="$TOP/contrib/rules/tools.rules" \
		-o state_dir="$TMP/reader-state" -o spool_dir="$TMP/reader.spool" "${LAKE[@]}" "$@" >>"$RLOG" 2>&1 &
	READER_PID=$!
	OWNED_PIDS+=("$READER_PID")
}
reader_up() { proc_gone "$READER_PID" || "$BUILD/tracer" -o socket="$RSOCK" status --json >/dev/null 2>&1; }
chmod 0644 "$TMP/chpw"
start_reader
wait_until 10 "the reader to stop on a readable password file" proc_gone "$READER_PID"
check "the reader refuses a password file others may read" grep -q "must be a file of root's with mode 0600" "$RLOG"
wait "$READER_PID" 2>/dev/null
READER_PID=
chmod 0600 "$TMP/chpw"
start_reader
wait_until 30 "the reader to answer" reader_up
check "the reader runs" not proc_gone "$READER_PID"
no_bpf() { ! proc_gone "$READER_PID" && ! ls -l "/proc/$READER_PID/fd" | grep -q 'bpf'; }
check "the reader holds no BPF object" no_bpf
check "the reader says mode reader" sh -c "'$BUILD/tracer' -o socket='$RSOCK' status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)[\"mode\"] == \"reader\" else 1)'"
check "tracer status of the reader (text)" sh -c "'$BUILD/tracer' -o socket='$RSOCK' status | grep -q reader"
refused_run() { local o; o=$(as "$UA" "$UTRACER" -o socket="$RSOCK" run -- /bin/true 2>&1); grep -q "this tracerd is a reader (mode = reader)" <<<"$o" || { echo "$o"; return 1; }; }
check "a registration at the reader is refused, saying why" refused_run
check "B cannot read the credentials file" not as "$UB" cat "$TMP/chpw"

echo "== each user through the reader"
# the CLI of a user on a login node: the reader's socket, no archive file
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$RSOCK" -o file="$TMP/nonexistent.ndjson" -o datalake=clickhouse "$@" 2>&1; }
jobs_are() { # jobs_are USER EXPECTED-JOB-UIDS... : tracer jobs --json of USER is exactly those
	local u=$1; shift
	ucli "$u" jobs --limit 0 --json | python3 -c '
import json, sys
got = sorted(j["job"] for j in json.load(sys.stdin))
want = sorted(sys.argv[1:])
if got != want:
    print("got", got, "want", want)
    sys.exit(1)' "$@"
}
INJ_JOB=$(cat "$TMP/$UA/inj.job")
check "tracer jobs of A: exactly A's two jobs" jobs_are "$UA" "$A_JOB" "$INJ_JOB"
check "tracer jobs of B: exactly B's job" jobs_are "$UB" "$B_JOB"
show_is() { ucli "$1" show --json "$2" | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["job"] == sys.argv[1] else 1)' "$3"; }
check "tracer show JOB of A" show_is "$UA" "$A_JOB" "$A_JOB"
check "tracer show NAME of A" show_is "$UA" "$MARK" "$A_JOB"
check "tracer show --html of A" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$RSOCK' -o file='$TMP/nonexistent.ndjson' show --html - '$A_JOB' | grep -q '$MARK'"
check "tracer report --by task of A counts A's job" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$RSOCK' -o file='$TMP/nonexistent.ndjson' report --by task --csv | grep -q '$MARK'"
not_found() { ! ucli "$1" show --json "$2" >/dev/null; }
check "tracer show A's job of B: not found" not_found "$UB" "$A_JOB"
check "tracer show A's task name of B: not found" not_found "$UB" "$MARK"
check "tracer jobs -u A of B: nothing" sh -c "test \"\$(setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json -u '$UA')\" = '[]'"
check "tracer report of B has none of A's jobs" sh -c "! setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' report --by task --csv | grep -q '$MARK'"

echo "== SQL injection through filter values selects nothing more"
check "jobs --name \"x' OR 1=1 --\" of B: nothing" sh -c "test \"\$(setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json --name \"$INJ\")\" = '[]'"
check "jobs --name \"x' OR 1=1 --\" of A: exactly that job" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json --name \"$INJ\" | python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(0 if [x[\"job\"] for x in j] == [\"$INJ_JOB\"] else 1)'"
check "jobs -u \"$UA' OR '1'='1\" of B: nothing" sh -c "test \"\$(setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json -u \"$UA' OR '1'='1\")\" = '[]'"
check "jobs -u '0 OR 1=1' of B: nothing" sh -c "test \"\$(setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json -u '0 OR 1=1')\" = '[]'"
check "jobs --name 'a\\' of B: nothing (a backslash ends no literal)" sh -c "test \"\$(setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$RSOCK' jobs --limit 0 --json --name 'a\\' -r \"') OR 1=1 --\")\" = '[]'"
check "show \"' OR '1'='1\" of B: not found" not_found "$UB" "' OR '1'='1"
check "show \"$A_JOB' OR uid != 0 OR '\" of B: not found" not_found "$UB" "$A_JOB' OR uid != 0 OR '"
check "B's listing still works after the attempts (the reader is up)" jobs_are "$UB" "$B_JOB"

echo "== B cannot query ClickHouse with what it was given"
check "an unauthenticated HTTP query fails" not as "$UB" curl -sf --max-time 5 "http://127.0.0.1:$CH_HTTP/?query=SELECT%201"
check "tracer_rw without its password fails" not as "$UB" curl -sf --max-time 5 -u tracer_rw: "http://127.0.0.1:$CH_HTTP/?query=SELECT%201"
check "B's tracer with datalake set but no credentials reads nothing of A" sh -c "! setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$TMP/none.sock' -o datalake=clickhouse -o clickhouse_url=http://127.0.0.1:$CH_HTTP/ jobs --limit 0 --json 2>&1 | grep -q '$A_JOB'"

echo "== root reads ClickHouse directly, without tracerd"
stop_reader
root_jobs() { root_lake jobs --limit 0 --json | python3 -c '
import json, sys
got = sorted(j["job"] for j in json.load(sys.stdin))
sys.exit(0 if got == sorted(sys.argv[1:]) else 1)' "$A_JOB" "$INJ_JOB" "$B_JOB"; }
check "tracer jobs of root: every job" root_jobs
check "tracer jobs -u B of root: B's job" sh -c "'$BUILD/tracer' -o socket='$TMP/none.sock' ${LAKE[*]} jobs --limit 0 --json -u '$UB' | grep -q '$B_JOB'"
check "tracer show A's job of root" sh -c "'$BUILD/tracer' -o socket='$TMP/none.sock' ${LAKE[*]} show --json '$A_JOB' | grep -q '$MARK'"
check "tracer report of root counts both users' jobs" bash -c "out=\$('$BUILD/tracer' -o socket='$TMP/none.sock' ${LAKE[*]} report --by user --csv) && grep -q '$UA' <<<\"\$out\" && grep -q '$UB' <<<\"\$out\""
# A task anyone may name "4242", newer, cannot shadow Slurm's job 4242 (a
# scheduler only root registers): the better match wins over the newer.
shadow_rows() { chq -q "SELECT summary FROM tracer.jobs WHERE job = '$A_JOB' LIMIT 1" | python3 -c '
import json, sys, time
s = json.loads(sys.stdin.readline())
rows = []
for sched, job, job_id, task, end in (("slurm", "u-slurm-4242", "4242", "batchjob", 1800000000),
                                      ("tracer", "u-shadow-4242", "", "4242", 1800000100)):
    t = json.loads(json.dumps(s))
    t["job"], t["summary_id"] = job, job
    t["identity"].update(scheduler=sched, job_id=job_id, task_name=task, step_id="batch" if job_id else "")
    t["end_ns"] = str(end * 10**9)
    rows.append({"summary_id": job, "job": job, "scheduler": sched, "cluster": "c1", "job_id": job_id,
                 "task_name": task, "uid": 0, "user": "root", "end_ns": end * 10**9,
                 "end": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(end)),
                 "summary": json.dumps(t, separators=(",", ":"))})
print("\n".join(json.dumps(r) for r in rows))' | chq -q "INSERT INTO tracer.jobs FORMAT JSONEachRow"; }
check "a Slurm job 4242 and a newer task named 4242 are in the datalake" shadow_rows
shown_job() { root_lake show --json 4242 | python3 -c 'import json,sys; i=json.load(sys.stdin)["identity"]; sys.exit(0 if (i["scheduler"], i["job_id"]) == ("slurm", "4242") else 1)'; }
check "tracer show 4242 of root: Slurm's job, not the newer task named 4242" shown_job
check "a user's tracer with the reader stopped says tracerd is not running" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$RSOCK' -o datalake=clickhouse jobs 2>&1 | grep -q 'tracerd is not running'"
lake_error() { # lake_error WANT OPTION...: root's tracer jobs fails saying WANT
	local want=$1 o; shift
	if o=$("$BUILD/tracer" -o socket="$TMP/none.sock" -o datalake=clickhouse -o clickhouse_user=tracer_rw "$@" jobs 2>&1); then echo "$o"; return 1; fi
	grep -qF "$want" <<<"$o" || { echo "$o"; return 1; }
}
printf 'wrong\n' >"$TMP/badpw"
chmod 0600 "$TMP/badpw"
check "a wrong password: a clear error (HTTP 401)" lake_error "ClickHouse at http://127.0.0.1:$CH_HTTP/: HTTP 401: " \
	-o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o clickhouse_password_file="$TMP/badpw"
check "nothing at the URL: a clear error" lake_error "ClickHouse at http://127.0.0.1:9/: " \
	-o clickhouse_url="http://127.0.0.1:9/" -o clickhouse_password_file="$TMP/chpw"


echo "== datalake_max_memory: a query that needs more fails, saying so"
MEMMSG="the query needed more than datalake_max_memory (1048576 bytes) on the server"
check "root's tracer jobs past 1 MiB: a clear error" lake_error "$MEMMSG" \
	-o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o clickhouse_password_file="$TMP/chpw" \
	-o datalake_max_memory=1048576
start_reader -o datalake_max_memory=1048576
wait_until 30 "the reader (datalake_max_memory 1 MiB) to answer" reader_up
user_mem_error() { local o; if o=$(ucli "$UA" jobs --limit 0 --json); then echo "$o"; return 1; fi; grep -qF "$MEMMSG" <<<"$o" || { echo "$o"; return 1; }; }
check "A's tracer jobs through the reader past 1 MiB: the same error" user_mem_error
stop_reader
start_reader
wait_until 30 "the reader (default datalake_max_memory) to answer" reader_up
check "with the default, A's listing works again" jobs_are "$UA" "$A_JOB" "$INJ_JOB"
stop_reader

no_sanitizer_reports "no sanitizer report in the reader's log" "$RLOG"
finish
