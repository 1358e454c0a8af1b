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
# `tracer jobs --limit N` picks the newest N jobs, then reads every
# summary of theirs (a job of 70 steps whole, the state the job's); a
# request without the job window (an older tracer) is answered as
# before.  A summary delivered twice counts once in tracer report
# --clickhouse and tracer jobs.  Every read of the datalake (jobs, show,
# report --clickhouse, sweep; through the reader and root's own) carries
# readonly=1 and max_memory_usage: system.query_log shows the settings
# each query ran with.
# The users and ClickHouse are made here and removed at the end.  Needs
# root and the services lock (flock /tmp/tracer-services.lock).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
# READER_CH_TCP, READER_CH_HTTP: other ports (another run may hold these)
CH_TCP=${READER_CH_TCP:-18611} CH_HTTP=${READER_CH_HTTP:-18634}
UA=tracer-ra
UB=tracer-rb
GRP=tracer-rg
SLEEPER=
cleanup() {
	[ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
	reader_stop
	kill_owned
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
ADMIN_PW=adm-$$-$RANDOM$RANDOM
RW_PW=rw-$$-$RANDOM$RANDOM
(umask 077 && ch_users_xml "$ADMIN_PW" "$RW_PW" '<log_queries>1</log_queries>' >"$TMP/users.in.xml")
# system.query_log: the settings each query ran with (config.d is merged
# into the server's configuration)
install -d -m 0700 "$TMP/ch" "$TMP/ch/config.d" || { echo "FAIL: cannot make $TMP/ch/config.d"; exit 1; }
cat >"$TMP/ch/config.d/query_log.xml" <<'XML'
<?xml version="1.0"?>
<yandex><query_log><database>system</database><table>query_log</table>
  <flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log></yandex>
XML
ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP" "$TMP/users.in.xml"
chq() { clickhouse-client --port "$CH_TCP" --password="$ADMIN_PW" --multiquery "$@"; }
check "the ClickHouse server is Debian's 18.16" ch_is_debian_1816
MIG=$TOP/contrib/clickhouse/migrations
check "schema v1 (migrations/001_v1.sql) loads" sh -c "clickhouse-client --port $CH_TCP --password='$ADMIN_PW' --multiquery < '$MIG/001_v1.sql'"
# the credentials: a root-only file, as tracer.conf's clickhouse_password_file
ch_lake_rw "$RW_PW"
# root's CLI on the datalake, with no tracerd at this socket
root_lake() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/nonexistent.ndjson" "${LAKE[@]}" "$@" 2>&1; }
v1_error() { local o; o=$(root_lake jobs --json); grep -q "schema version 1 has no summary column: run tracer datalake migrate" <<<"$o" || { echo "$o"; return 1; }; }
check "schema v1: tracer jobs of root says to migrate" v1_error
check "tracer datalake migrate brings it to version 8" sh -c "'$BUILD/tracer' ${LAKE[*]} datalake migrate --dir '$MIG' >/dev/null 2>&1 && '$BUILD/tracer' ${LAKE[*]} datalake status 2>&1 | grep -q '^schema version 8'"

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
chmod 0644 "$TMP/chpw"
reader_start
wait_until 10 "the reader to stop on a readable password file" proc_gone "$READER_PID"
check "the reader refuses a password file others may read" grep -q "must be a file of root's with mode 0600" "$RLOG"
wait "$READER_PID" 2>/dev/null
READER_PID=
chmod 0600 "$TMP/chpw"
reader_up
check "the reader runs" not proc_gone "$READER_PID"
no_bpf() { ! proc_gone "$READER_PID" && ! ls -l "/proc/$READER_PID/fd" | grep -q 'bpf'; }
check "the reader holds no BPF object" no_bpf
check "the reader says mode reader" sh -c "'$BUILD/tracer' -o socket='$RSOCK' status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)[\"mode\"] == \"reader\" else 1)'"
check "tracer status of the reader (text)" sh -c "'$BUILD/tracer' -o socket='$RSOCK' status | grep -q reader"
refused_run() { local o; o=$(as "$UA" "$UTRACER" -o socket="$RSOCK" run -- /bin/true 2>&1); grep -q "this tracerd is a reader (mode = reader)" <<<"$o" || { echo "$o"; return 1; }; }
check "a registration at the reader is refused, saying why" refused_run
check "B cannot read the credentials file" not as "$UB" cat "$TMP/chpw"

echo "== each user through the reader"
# the reads of the datalake from here on are checked in system.query_log
T0=$(chq -q "SELECT toUInt32(now())")
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
# tracerd takes 255 bytes of a list: one cut there would ask for other
# jobs than asked (here without A's own task)
LONG=$(printf 'x%.0s' $(seq 300)),$MARK
long_list() { local o; if o=$(ucli "$UA" jobs --limit 0 --json --name "$LONG"); then echo "$o"; return 1; fi; grep -qF "tracerd takes at most 255" <<<"$o" || { echo "$o"; return 1; }; }
check "jobs --name of more than 255 bytes of A: refused, saying the limit, not cut" long_list

echo "== B cannot query ClickHouse with what it was given"
check "an unauthenticated HTTP query fails" not as "$UB" curl -sf --max-time 5 "http://127.0.0.1:$CH_HTTP/?query=SELECT%201"
check "tracer_rw without its password fails" not as "$UB" curl -sf --max-time 5 -u tracer_rw: "http://127.0.0.1:$CH_HTTP/?query=SELECT%201"
check "B's tracer with datalake set but no credentials reads nothing of A" sh -c "! setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$TMP/none.sock' -o datalake=clickhouse -o clickhouse_url=http://127.0.0.1:$CH_HTTP/ jobs --limit 0 --json 2>&1 | grep -q '$A_JOB'"

echo "== tracer jobs: the newest jobs first, then every summary of theirs"
# A's Slurm job 77001, newer than A's others, of 70 steps (more than the
# 64 summaries per job a listing used to read), the last one FAILED
UA_UID=$(id -u "$UA")
wide_job() { chq -q "SELECT summary FROM tracer.jobs WHERE job = '$A_JOB' LIMIT 1" | python3 -c '
import json, sys, time
s = json.loads(sys.stdin.readline())
uid, user = int(sys.argv[1]), sys.argv[2]
end = int(time.time()) + 3600
rows = []
for i in range(70):
    sid = "wide77001-%08d-0000000000000000" % i
    t = json.loads(json.dumps(s))
    state = "FAILED" if i == 69 else "COMPLETED"
    t["job"], t["summary_id"], t["state"] = sid, sid, state
    t["identity"].update(scheduler="slurm", cluster="c1", job_id="77001", step_id=str(i),
                         task_name="wide-77001")
    t["end_ns"] = str((end + i) * 10**9)
    rows.append({"summary_id": sid, "job": sid, "scheduler": "slurm", "cluster": "c1",
                 "job_id": "77001", "step_id": str(i), "task_name": "wide-77001", "uid": uid,
                 "user": user, "state": state, "end_ns": (end + i) * 10**9,
                 "end": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(end + i)),
                 "summary": json.dumps(t, separators=(",", ":"))})
print("\n".join(json.dumps(r) for r in rows))' "$UA_UID" "$UA" | chq -q "INSERT INTO tracer.jobs FORMAT JSONEachRow"; }
check "A's job 77001 of 70 steps is in the datalake" wide_job
# listed JOBS... : the --json listing is exactly these jobs (job ids or
# uids), the first with STEPS steps and state STATE
listed() {
	python3 -c '
import json, sys
j = json.load(sys.stdin)
steps, state, want = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
got = [v["identity"].get("job_id") or v["job"] for v in j]
if got != want or len(j[0]["steps"]) != steps or j[0]["state"] != state:
    print("got", got, [(len(v["steps"]), v.get("state")) for v in j], "want", want, steps, state)
    sys.exit(1)' "$@"
}
ujobs_listed() { local u=$1 o; shift; o=$(ucli "$u" jobs --json "$@") || { echo "$o"; return 1; }; listed "${LISTED[@]}" <<<"$o"; }
LISTED=(70 FAILED 77001)
check "A's jobs --limit 1 through the reader: job 77001, all 70 steps, FAILED" \
	ujobs_listed "$UA" --limit 1
check "A's jobs --limit 1 -s F through the reader: the same job (the job's state)" \
	ujobs_listed "$UA" --limit 1 -s F
LISTED=(1 COMPLETED "$INJ_JOB")
check "A's jobs --limit 1 -s CD through the reader: A's newest COMPLETED job, not a step of 77001" \
	ujobs_listed "$UA" --limit 1 -s CD
LISTED=(70 FAILED 77001)
rjobs_listed() { local o; o=$(root_lake jobs --json "$@") || { echo "$o"; return 1; }; listed "${LISTED[@]}" <<<"$o"; }
check "root's jobs -u A --limit 1: job 77001, all 70 steps" rjobs_listed -u "$UA" --limit 1
check "B's jobs --limit 1 through the reader: B's job only" jobs_are "$UB" "$B_JOB"
USOCKREQ=$(user_copy "$BUILD/tests/helpers/sockreq") || exit 1
old_request() { # a listing of a tracer that predates the job window: by limit, 64 summaries
	local o; o=$(as "$UA" "$USOCKREQ" "$RSOCK" '{"op":"summaries","v":1,"limit":64,"filter":{}}') || { echo "$o"; return 1; }
	tail -n 1 <<<"$o" | python3 -c 'import json,sys; e=json.load(sys.stdin); sys.exit(0 if e["ok"] and e["count"] == 64 else 1)' || { tail -n 1 <<<"$o"; return 1; }
}
check "a request without \"jobs\" (an older tracer) is answered by its limit in summaries" old_request
bad_jobs() { local o; o=$(as "$UA" "$USOCKREQ" "$RSOCK" '{"op":"summaries","v":1,"limit":64,"jobs":-3}'); grep -qF '"jobs\": expected a count of jobs (0 or more)' <<<"$o" || { echo "$o"; return 1; }; }
check "a request with a bad \"jobs\": a clear error" bad_jobs

echo "== a summary delivered twice counts once"
report_of() { root_lake report --clickhouse --since 1d --json "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps([r["jobs"], r["groups"]], sort_keys=True))'; }
BY_TASK=$(report_of --by task)
BY_TOOL=$(report_of --by tool)
JOBS_A=$(root_lake jobs --limit 0 --json -u "$UA" | python3 -c 'import json,sys; print(sorted((v["job"], len(v["steps"])) for v in json.load(sys.stdin)))')
twice() {
	chq -q "SYSTEM STOP MERGES" &&
	chq -q "INSERT INTO tracer.tools SELECT * FROM tracer.tools WHERE summary_id IN (SELECT summary_id FROM tracer.jobs WHERE job = '$A_JOB')" &&
	chq -q "INSERT INTO tracer.flags SELECT * FROM tracer.flags WHERE summary_id IN (SELECT summary_id FROM tracer.jobs WHERE job = '$A_JOB')" &&
	chq -q "INSERT INTO tracer.jobs SELECT * FROM tracer.jobs WHERE job = '$A_JOB'"
}
check "A's job's rows inserted a second time (merges stopped)" twice
dup_rows() { [ "$(chq -q "SELECT count() FROM tracer.jobs WHERE job = '$A_JOB'")" = 2 ]; }
check "tracer.jobs holds A's job twice" dup_rows
same_as() { local want=$1 got; shift; got=$("$@"); [ "$got" = "$want" ] || { echo "got  $got"; echo "want $want"; return 1; }; }
# the same numbers but for the last digits: ClickHouse sums in the
# order its parts and threads give
same_report() {
	local want=$1 got
	shift
	got=$("$@") || return 1
	python3 -c 'import json, sys
def same(x, y):
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return len(x) == len(y) and all(same(i, j) for i, j in zip(x, y))
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= 1e-9 * max(1.0, abs(x))
    return x == y
sys.exit(0 if same(json.loads(sys.argv[1]), json.loads(sys.argv[2])) else f"got  {sys.argv[2]}\nwant {sys.argv[1]}")' "$want" "$got"
}
check "report --clickhouse --by task: the same as before the duplicate" same_report "$BY_TASK" report_of --by task
check "report --clickhouse --by tool: the same as before the duplicate" same_report "$BY_TOOL" report_of --by tool
jobs_of_a() { root_lake jobs --limit 0 --json -u "$UA" | python3 -c 'import json,sys; print(sorted((v["job"], len(v["steps"])) for v in json.load(sys.stdin)))'; }
check "jobs -u A: each job once, its steps once" same_as "$JOBS_A" jobs_of_a
check "the duplicate was still there (not merged away)" dup_rows
chq -q "SYSTEM START MERGES"

echo "== root reads ClickHouse directly, without tracerd"
reader_stop
root_jobs() { root_lake jobs --limit 0 --json | python3 -c '
import json, sys
# every job delivered by the sink (not job 77001, inserted above)
got = sorted(j["job"] for j in json.load(sys.stdin) if j["identity"].get("job_id") != "77001")
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

echo "== every read of the datalake is read-only and bounded on the server"
check "root's report --clickhouse --by pipeline" sh -c "'$BUILD/tracer' -o socket='$TMP/none.sock' ${LAKE[*]} report --clickhouse --by pipeline >/dev/null"
check "root's sweep --by user" sh -c "'$BUILD/tracer' -o socket='$TMP/none.sock' ${LAKE[*]} sweep --since 30d --by user >/dev/null"
# the reads since the users' listings (type 1: a query's start): every
# one with readonly=1 and datalake_max_memory (the default, 1 GiB); the
# version checks of an error path and nothing else excluded
reads_ro() {
	chq -q "SYSTEM FLUSH LOGS" || return 1
	local r; r=$(chq -q "SELECT count(), countIf(Settings.Values[indexOf(Settings.Names, 'readonly')] = '1'
		AND Settings.Values[indexOf(Settings.Names, 'max_memory_usage')] = '1073741824'),
		countIf(query LIKE '%GROUP BY g%'), countIf(query LIKE '%sweep%' OR query LIKE '%worst_rank%')
		FROM system.query_log WHERE type = 1 AND user = 'tracer_rw'
		AND event_time >= toDateTime($T0) AND query NOT LIKE 'INSERT%'
		AND query NOT LIKE '%version()%' AND query NOT LIKE '%schema_version%' FORMAT TSV")
	read -r n ro rep sw <<<"$r"
	[ "$n" -ge 10 ] && [ "$ro" = "$n" ] && [ "$rep" -ge 1 ] && [ "$sw" -ge 1 ] || {
		echo "reads $n, with readonly=1 and max_memory_usage $ro, report's $rep, sweep's $sw"
		chq -q "SELECT substring(query, 1, 120), Settings.Names, Settings.Values FROM system.query_log
			WHERE type = 1 AND user = 'tracer_rw' AND event_time >= toDateTime($T0)
			AND query NOT LIKE 'INSERT%' AND indexOf(Settings.Names, 'readonly') = 0 LIMIT 5"
		return 1; }
}
check "every read since (jobs, show, report --clickhouse, sweep) ran with readonly=1 and max_memory_usage" reads_ro

echo "== datalake_max_memory: a query that needs more fails, saying so"
MEMMSG="the query needed more than datalake_max_memory (1048576 bytes) on the server"
check "root's tracer jobs past 1 MiB: a clear error" lake_error "$MEMMSG" \
	-o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o clickhouse_password_file="$TMP/chpw" \
	-o datalake_max_memory=1048576
reader_up -o datalake_max_memory=1048576
user_mem_error() { local o; if o=$(ucli "$UA" jobs --limit 0 --json); then echo "$o"; return 1; fi; grep -qF "$MEMMSG" <<<"$o" || { echo "$o"; return 1; }; }
check "A's tracer jobs through the reader past 1 MiB: the same error" user_mem_error
errors_counted() { "$BUILD/tracer" -o socket="$RSOCK" status --json | python3 -c 'import json,sys
a = json.load(sys.stdin)["archive_requests"]
sys.exit(0 if a.get("errors", 0) >= 1 else f"archive_requests {a}")'; }
check "the reader counts the answer it gave as an error (archive_requests.errors)" errors_counted
reader_stop
reader_up
check "with the default, A's listing works again" jobs_are "$UA" "$A_JOB" "$INJ_JOB" 77001

echo "== one question of a user at a time on the server"
# ClickHouse 18.16 goes on with a query whose client gave up (the reader's
# deadline passed): a question of A's still running there (here one that
# sleeps, under the id the reader gives A's questions) holds A's next
# question off, not B's
QID=tracerd-$(hostname | cut -c1-40 | tr -c 'A-Za-z0-9._\n-' _)-$READER_PID-u$UA_UID
curl -s -u "tracer_rw:$RW_PW" --max-time 30 "http://127.0.0.1:$CH_HTTP/?query_id=$QID&max_block_size=1" \
	--data-binary "SELECT sum(sleep(1)) FROM numbers(8)" >/dev/null &
SLEEPER=$!
sleeping() { [ "$(chq -q "SELECT count() FROM system.processes WHERE query_id = '$QID'")" = 1 ]; }
wait_until 10 "the query $QID on the server" sleeping
a_busy() { local o; if o=$(ucli "$UA" jobs --limit 0 --json); then echo "$o"; return 1; fi; grep -qF "busy: your earlier question is still running on the datalake's server" <<<"$o" || { echo "$o"; return 1; }; }
check "A's listing while A's earlier question runs on the server: busy, saying why" a_busy
check "B's listing meanwhile: B's job" jobs_are "$UB" "$B_JOB"
wait "$SLEEPER"
SLEEPER=
check "A's listing once it ended: A's jobs" jobs_are "$UA" "$A_JOB" "$INJ_JOB" 77001
reader_stop

echo "== tracer report reads its window only"
# 2,400 summaries of A's of 30 KB that ended 40 days ago: more than one
# answer of the datalake holds (64 MiB)
old_history() { chq -q "SELECT summary FROM tracer.jobs WHERE job = '$A_JOB' LIMIT 1" | python3 -c '
import json, sys, time
s = json.loads(sys.stdin.readline())
uid, user = int(sys.argv[1]), sys.argv[2]
end = int(time.time()) - 40 * 86400
for i in range(2400):
    sid = "old-%08d" % i
    t = dict(s, job=sid, summary_id=sid, end_ns=str((end + i) * 10**9), pad="x" * 30000)
    print(json.dumps({"summary_id": sid, "job": sid, "scheduler": "local", "uid": uid, "user": user,
                      "task_name": "old-history", "end_ns": (end + i) * 10**9,
                      "end": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(end + i)),
                      "summary": json.dumps(t, separators=(",", ":"))}))' "$UA_UID" "$UA" |
	chq -q "INSERT INTO tracer.jobs FORMAT JSONEachRow"; }
check "A's 70 MiB of summaries of 40 days ago are in the datalake" old_history
reader_up
report_window() { # report_window COMMAND...: its report --since 7d has A's task, not the old ones
	local o; o=$("$@" report --since 7d --by task --csv) || { echo "$o"; return 1; }
	grep -qF "$MARK" <<<"$o" && ! grep -q old-history <<<"$o" || { echo "$o"; return 1; }
}
check "A's report --since 7d through the reader: A's task of today" report_window ucli "$UA"
check "root's report --since 7d from the datalake: the same" report_window root_lake
reader_stop

no_sanitizer_reports "no sanitizer report in the reader's log" "$RLOG"
finish
