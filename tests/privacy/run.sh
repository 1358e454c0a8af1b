#!/bin/bash
# run.sh BUILD - each user sees only their own finished jobs: the archive
# is root's and admin_group's, so `tracer show`, `tracer jobs` and
# `tracer report` of any other user are answered by tracerd over its
# socket with that user's jobs.  Two unprivileged test users and an admin
# group are created here and removed at the end.  Also: the files tracerd
# writes are not readable by others, tracerd answers these requests off
# its event loop with a bounded number at once.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
UA=tracer-pa
UB=tracer-pb
ADM=tracer-padm

cleanup() {
	kill_owned
	stop_tracerd
	remove_test_users
	remove_suite_tmp
}
need_root
suite_tmp priv
trap cleanup EXIT
need_built tracerd tracer
need_commands python3 curl ss
MPORT=$(free_port 18201 18209) || { echo "FAIL: no free port in 18201-18209 for metrics_listen"; exit 1; }
make_test_users "$ADM" "$UA" "$UB"
# the CLI the test users run, copied where they can read it (user_copy)
UTRACER=$(user_copy "$BUILD/tracer") || exit 1
as_admin() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --groups="$ADM" -- "$@"; }
# the CLI of a user; file= names a file that does not exist, so that an
# answer can only come from tracerd
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TMP/nonexistent.ndjson" "$@" 2>&1; }

# an http sink that fails (nothing listens on port 9), its URL with a
# password: the error tracer status shows
SECRET=s3cr3t-$$
start_tracerd p -o admin_group="$ADM" -o metrics_listen=127.0.0.1:$MPORT \
	-o sinks=file,http -o http_url="http://tracer:$SECRET@127.0.0.1:9/ingest" || exit 1
echo "== tracerd keeps only the capabilities it needs once its programs are loaded"
cap_field() { awk -v f="$2:" '$1 == f { print $2 }' "$1/status"; }
KREL=$(uname -r)
if [ "$(printf '%s\n' 6.5 "${KREL%%-*}" | sort -V | head -n 1)" = 6.5 ]; then
	# CAP_SYS_PTRACE (19) and CAP_DAC_READ_SEARCH (2): daemon/caps.c
	WANT=0000000000080004
	check "the loop's thread: CapEff is CAP_SYS_PTRACE + CAP_DAC_READ_SEARCH only" \
		test "$(cap_field /proc/$TRACERD_PID CapEff)" = "$WANT"
	check "the loop's thread: CapPrm the same" test "$(cap_field /proc/$TRACERD_PID CapPrm)" = "$WANT"
	check "the loop's thread: CapBnd the same" test "$(cap_field /proc/$TRACERD_PID CapBnd)" = "$WANT"
else
	fail "kernel $KREL is older than 6.5: this check knows only the set of 6.5 and later"
fi
no_caps_threads() {
	local n=0 t
	for t in /proc/$TRACERD_PID/task/*; do
		[ "$(cap_field "$t" CapEff)" = 0000000000000000 ] && n=$((n + 1))
	done
	[ "$n" -ge 3 ] || { echo "$n threads without capabilities"; return 1; }
}
check "the archive workers and the user name resolver have no capability" no_caps_threads
# the metrics server's thread (libmicrohttpd names it MHD-...) was started
# after the loop's drop and inherited the loop's set
metrics_thread_bare() {
	local t n=0
	for t in /proc/$TRACERD_PID/task/*; do
		case $(cat "$t/comm") in MHD-*) ;; *) continue;; esac
		n=$((n + 1))
		[ "$(cap_field "$t" CapEff)$(cap_field "$t" CapPrm)" = 00000000000000000000000000000000 ] ||
			{ echo "$(cat "$t/comm") ($t): CapEff $(cap_field "$t" CapEff)"; return 1; }
	done
	[ "$n" -ge 1 ] || { echo "no MHD thread"; return 1; }
}
check "the metrics server's thread has no capability" metrics_thread_bare
# capabilities are per thread: the threads started before the loop's drop
# (spool writer, sinks, time-limit asker) drop their own; the delivery
# threads keep only CAP_CHOWN (0), for the archive's group
no_thread_beyond() {
	local t e
	for t in /proc/$TRACERD_PID/task/*; do
		e=$(cap_field "$t" CapEff)
		[ $((0x$e & ~0x80005)) -eq 0 ] || { echo "$(cat "$t/comm") ($t): CapEff $e"; return 1; }
	done
}
check "no thread of tracerd has more than CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_CHOWN" no_thread_beyond
MARK=pa-MARK-$$
BMARK=pb-MARK-$$

echo "== user A's finished job, as A, B, an admin and root"
# open until the metrics are checked (the go file), then it exits 0
as "$UA" "$UTRACER" -o socket="$TRACERD_SOCK" run --name "$MARK" --job-file "$TMP/$UA/a.job" -- \
	/bin/sh -c "while [ ! -e '$TMP/$UA/a.go' ]; do sleep 0.05; done # ARGV-$MARK" &
A_PID=$!
OWNED_PIDS+=("$A_PID")
wait_until 20 "A's job to be open" sh -c "'$BUILD/tracer' -o socket='$TRACERD_SOCK' status --json | grep -q '$MARK'"
# the metrics endpoint while A's job runs, in a copy that has the job's
# series (rendered since it opened): no argv of A in it
a_in_metrics() {
	curl -s --max-time 5 "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt" &&
		grep -q "job_uid=\"$(cat "$TMP/$UA/a.job")\"" "$TMP/metrics.txt"
}
check "the metrics endpoint answers with A's running job" poll_until 30 a_in_metrics
if grep -q "ARGV-$MARK\|$MARK" "$TMP/metrics.txt"; then fail "the metrics endpoint shows A's command line or job name"; else pass "the metrics endpoint shows neither A's command line nor job name"; fi
touch "$TMP/$UA/a.go"
wait "$A_PID"
wait_until 30 "A's summary" summary_of_job "$TMP/$UA/a.job"
A_JOB=$(cat "$TMP/$UA/a.job")
check "the archive is not readable by A (0640, admin group)" not as "$UA" cat "$TRACERD_FILE"

echo "== the sink's last error: admins only, without credentials"
# sink_error JSON: the http sink's last_error ("" when it has none)
sink_error() {
	python3 -c '
import json, sys
for s in json.load(sys.stdin)["delivery"]["sinks"]:
    if s["sink"] == "http":
        print(s.get("last_error", ""))' 2>&1
}
http_failed() { [ -n "$(tr_cli status --json | sink_error)" ]; }
wait_until 30 "the http sink's first failure" http_failed
root_error=$(tr_cli status --json | sink_error)
check "root sees the sink's last error" test -n "$root_error"
no_password() { grep -q '127.0.0.1:9' <<<"$1" && ! grep -q "$SECRET" <<<"$1" || { echo "$1"; return 1; }; }
check "the last error names the sink but has no password" no_password "$root_error"
admin_error=$(as_admin "$UB" "$BUILD/tracer" -o socket="$TRACERD_SOCK" status --json | sink_error)
check "admin_group sees the last error, without password" no_password "$admin_error"
user_status_json=$(ucli "$UA" status --json)
no_error() { grep -q '"sinks"' <<<"$1" && ! grep -q "last_error\|127.0.0.1:9\|$SECRET" <<<"$1" || { echo "$1" | head -c 400; return 1; }; }
check "tracer status --json of A has no sink error" no_error "$user_status_json"
user_status=$(ucli "$UA" status)
check "tracer status of A names no sink error" not grep -q "127.0.0.1:9\|$SECRET" <<<"$user_status"
check "tracerd's log has no password" not grep -q "$SECRET" "$TRACERD_LOG"
owner_jobs() { local o; o=$(ucli "$UA" jobs --wide); echo "$o" | grep -q "$MARK" || { echo "$o" | tail -n 3; return 1; }; }
check "tracer jobs of A lists A's finished job (answered by tracerd)" owner_jobs
owner_jobs_json() {
	ucli "$UA" jobs --json | python3 -c '
import json, sys
jobs = json.load(sys.stdin)
sys.exit(0 if [j["job"] for j in jobs] == [sys.argv[1]] else 1)' "$A_JOB"
}
check "tracer jobs --json of A is exactly A's job" owner_jobs_json
show_is() { # show_is USER NAME JOB_UID: tracer show --json NAME of USER is that job
	ucli "$1" show --json "$2" | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["job"] == sys.argv[1] else 1)' "$3"
}
check "tracer show JOB of A" show_is "$UA" "$A_JOB" "$A_JOB"
check "tracer show NAME of A" show_is "$UA" "$MARK" "$A_JOB"
check "tracer show last of A" show_is "$UA" last "$A_JOB"
check "tracer show --json of A has A's argv" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' show --json '$A_JOB' | grep -q 'ARGV-$MARK'"
check "tracer jobs -s CD --name of A (filters applied by tracerd)" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' jobs --json -s CD --name '$MARK' | grep -q '$A_JOB'"
check "tracer jobs --name other of A is empty" sh -c "test \"\$(setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' jobs --json --name nosuch)\" = '[]'"
check "tracer report --by task of A counts A's job" sh -c "setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' report --by task --csv | grep -q '$MARK'"

# B has a job of their own, finished after A's
as "$UB" "$UTRACER" -o socket="$TRACERD_SOCK" run --name "$BMARK" --job-file "$TMP/$UB/b.job" -- true
wait_until 30 "B's summary" summary_of_job "$TMP/$UB/b.job"
B_JOB=$(cat "$TMP/$UB/b.job")
# text output --wide: nothing is cut that could hide a leak
for cmd in "jobs --wide" "jobs --json" "jobs --limit 0 --csv" "jobs --wide -u $UA" "show --wide $MARK" "show --json $MARK" "show --wide $A_JOB" "show --json $A_JOB" "report --wide --by task" "report --by user --json"; do
	out=$(ucli "$UB" $cmd)
	case $cmd in show*) leak="ARGV-$MARK|\"job\": *\"$A_JOB\"|^Job +$A_JOB";; *) leak="$MARK|$A_JOB";; esac
	if echo "$out" | grep -Eq "$leak"; then fail "tracer $cmd of B shows A's job"; echo "$out" | head -5 | sed 's/^/    /'; else pass "tracer $cmd of B does not show A's job"; fi
done
check "tracer show last of B is B's own job, not A's" show_is "$UB" last "$B_JOB"
check "tracer jobs of B lists B's job" sh -c "setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' jobs --wide | grep -q '$BMARK'"
check "tracer show A_JOB of B: no such job, exit 1" sh -c "! setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' show '$A_JOB' >/dev/null 2>&1"

both_in() { echo "$1" | grep -q "$MARK" && echo "$1" | grep -q "$BMARK" || { echo "$1" | tail -n 3; return 1; }; }
check "a member of admin_group sees both jobs (tracer jobs over the socket)" both_in "$(as_admin "$UB" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TMP/nonexistent.ndjson" jobs --wide 2>&1)"
check "a member of admin_group sees A's job (tracer show)" sh -c "setpriv --reuid='$UB' --regid='$UB' --groups='$ADM' -- '$UTRACER' -o socket='$TRACERD_SOCK' -o file='$TMP/nonexistent.ndjson' show --json '$A_JOB' | grep -q 'ARGV-$MARK'"
check "root sees both jobs (tracer jobs reads the archive)" both_in "$(tr_cli jobs --wide 2>&1)"
check "root sees A's job (tracer show)" sh -c "'$BUILD/tracer' -o file='$TRACERD_FILE' show --json '$A_JOB' | grep -q 'ARGV-$MARK'"

echo "== the files tracerd writes: not readable by other users"
# every file and directory under the test's tree that holds A's job
# (tracerd's log here is this script's redirection: a service logs to the journal)
files=$(grep -rl "$MARK" "$TMP" 2>/dev/null | grep -v "/$UA/" | grep -v "\.log$" | grep -v metrics.txt)
[ -n "$files" ] || fail "no file holds A's job (the test would prove nothing)"
for f in $files; do
	if as "$UB" cat "$f" >/dev/null 2>&1; then fail "B can read $f"; else pass "B cannot read $(basename "$f")"; fi
done
no_other_access() { # the mode gives others nothing
	local m; m=$(stat -c %a "$1"); [ $((8#$m & 8#007)) -eq 0 ] || { echo "$1: mode $m"; return 1; }
}
check "the spool directory gives others no access" no_other_access "$TMP/p.spool"
check "the state directory gives others no access" no_other_access "$TMP/tracerd-state"
for f in "$TMP"/p.spool/* "$TMP"/tracerd-state/*; do
	[ -e "$f" ] || continue
	check "$(basename "$(dirname "$f")")/$(basename "$f") gives others no access" no_other_access "$f"
done
check "B cannot list the spool" not as "$UB" ls "$TMP/p.spool"

echo "== tracerd answers archive requests off its loop, a bounded number at once"
# an archive of 500 copies of A's summary (a few MiB): root's full
# listings that are read a few bytes at a time hold the workers
python3 - "$TRACERD_FILE" "$A_JOB" <<'PY'
import sys
path, job = sys.argv[1], sys.argv[2]
line = next(l for l in open(path) if job in l)
with open(path, "a") as f:
    for i in range(500):
        f.write(line.replace(job, "%s-copy%d" % (job, i)))
PY
PYTHONPATH="$TOP/tests" python3 - "$TRACERD_SOCK" "$TMP/stall.out" <<'PY' &
import json, socket, sys, threading, time
import tracerd_req
path, out = sys.argv[1:3]
req = b'{"op":"summaries","v":1,"limit":0,"all_files":true}\n'
def archive():
    return tracerd_req.ask(path, {"op": "status", "v": 1})["status"]["archive_requests"]
before = archive()
def decided(a):  # requests tracerd has read: refused, waiting, being or done served
    return a["in_progress"] + sum(a[k] - before[k] for k in ("refused_busy", "served", "reply_failed"))
conns, replies = [], []
for i in range(12):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(path)
    s.sendall(req)
    conns.append(s)
# wait until tracerd has read all 12 (taken by a worker, queued, or
# refused busy with its answer already sent) while nobody reads: then the
# workers are held in send; waited for with a deadline, not a sleep
deadline = time.monotonic() + 30
while True:
    a = archive()
    if decided(a) >= 12:
        break
    if time.monotonic() > deadline:
        open(out, "w").write("busy=none: tracerd did not take the 12 requests in 30 s: %s\n" % a)
        sys.exit(1)
    time.sleep(0.02)
busy = 0
for s in conns:
    s.settimeout(0.2)
    try:
        head = s.recv(200)
    except socket.timeout:
        continue
    if b'"ok":false' in head and b"busy" in head:
        busy += 1
# the workers stay held until released: a few bytes read now and then
# keep each send going (never stalled for tracerd's send timeout), far
# too few to finish a reply, until the connections are closed
released = threading.Event()
def trickle():
    while not released.wait(0.5):
        for c in conns:
            try:
                c.recv(2048, socket.MSG_DONTWAIT)
            except OSError:
                pass
threading.Thread(target=trickle, daemon=True).start()
# the loop still answers while the workers are held: each reply says
# itself that they were (archive_requests.in_progress) when it was made;
# a loop that waited for them would answer none of these by the
# request's own deadline (30 s)
held, failed, worst = 0, 0, 0.0
for i in range(20):
    t = time.monotonic()
    try:
        r = tracerd_req.ask(path, {"op": "status", "v": 1}, timeout=30)
        worst = max(worst, time.monotonic() - t)
        if r.get("ok") and r["status"]["archive_requests"]["in_progress"] >= 1:
            held += 1
    except (OSError, ValueError):
        failed += 1
        break  # tracerd does not answer: the rest would wait as long
released.set()
for s in conns:
    s.close()
open(out, "w").write("busy=%d held=%d unanswered=%d worst_status_s=%.3f\n" % (busy, held, failed, worst))
PY
STALL_PID=$!
OWNED_PIDS+=("$STALL_PID")
wait_until 120 "the stalled-reader client" test -s "$TMP/stall.out"
wait "$STALL_PID"
echo "    $(cat "$TMP/stall.out")"
check "requests beyond the bound get a busy error at once" grep -Eq 'busy=([4-9]|1[0-2]) ' "$TMP/stall.out"
check "20 status requests answered while the workers are held (each reply says so), none unanswered (30 s each)" \
	grep -q ' held=20 unanswered=0 ' "$TMP/stall.out"
busy_counted() { tr_cli status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["archive_requests"]["refused_busy"] > 0 else 1)'; }
check "tracer status counts the refused archive requests" busy_counted
# the held workers give up (client gone or send timeout) and serve again
wait_until 30 "A's listing once the workers are free" owner_jobs
check "A's listing over the large archive: A's 20 newest" sh -c "test \$(setpriv --reuid='$UA' --regid='$UA' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' jobs --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') = 20"
check "B's listing over the large archive holds no job of A" sh -c "! setpriv --reuid='$UB' --regid='$UB' --init-groups -- '$UTRACER' -o socket='$TRACERD_SOCK' jobs --limit 0 --json | grep -q '$A_JOB'"

echo "== without SO_PEERPIDFD (kernels before 6.5): owner and start time"
stop_tracerd
TRACERD_TEST_NO_PEERPIDFD=1 start_tracerd f || exit 1
check "tracerd says it checks peers without SO_PEERPIDFD" grep -q "TRACERD_TEST_NO_PEERPIDFD=1" "$TRACERD_LOG"
as "$UA" "$UTRACER" -o socket="$TRACERD_SOCK" run --name fallback --job-file "$TMP/$UA/f.job" -- true
check "a user's registration is served" wait_until 30 "the fallback job's summary" summary_of_job "$TMP/$UA/f.job"
check "registration from a pid now another user's process is refused" \
	python3 "$TOP/tests/hardening/pidreuse.py" "$TRACERD_SOCK" "$UA" "$UB"
peer_gone_counted() { tr_cli status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["socket_stats"]["peer_gone"] > 0 else 1)'; }
check "the refusal is counted (socket_stats.peer_gone)" peer_gone_counted

finish
