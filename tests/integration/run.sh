#!/bin/bash
# run.sh BUILD - tracerd on the real kernel: start it, run real workloads
# under `tracer run`, check every summary against ground truth taken from
# wait4 of the same processes.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-it.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/integration/check.py"
CG_DIR=

OWNED_PID=
cleanup() {
	# processes the tests left blocked on purpose, by pid
	for f in "$TMP/outlive.pid"; do
		[ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	if [ -n "$OWNED_PID" ]; then
		kill -KILL "$OWNED_PID" 2>/dev/null
		wait "$OWNED_PID" 2>/dev/null
	fi
	stop_tracerd
	[ -n "$CG_DIR" ] && rmdir "$CG_DIR" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for h in tiny spin touchmem iorw daemonize spawner; do
	[ -x "$H/$h" ] || { echo "FAIL: helper $H/$h missing (make all)"; exit 1; }
done
for b in tracerd tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in python3 setpriv pgrep; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done
id nobody >/dev/null 2>&1 || { echo "FAIL: no 'nobody' account for the ownership test"; exit 1; }
start_tracerd it || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

echo "== 2,000 processes of about 1 ms"
trun "$TMP/j.storm" -- "$H/spawner" "$TMP/truth.storm" 2000 "$H/tiny" %i
chk "exec storm: 2000 recorded, right executable and exit codes, no drops" "$TMP/j.storm" storm 2000 "$TMP/truth.storm" tiny

echo "== CPU seconds against wait4"
trun "$TMP/j.cpu" -- "$H/spawner" "$TMP/truth.cpu" 6 "$H/spin" 300
chk "CPU per tool within 2% of wait4" "$TMP/j.cpu" cpu "$TMP/truth.cpu" spin

echo "== peak RSS against wait4"
trun "$TMP/j.rss" -- "$H/spawner" "$TMP/truth.rss" 1 "$H/touchmem" 256 100
chk "peak RSS within 2% of wait4 maxrss" "$TMP/j.rss" rss "$TMP/truth.rss" touchmem

echo "== read/write bytes"
# exec's own reads of the ELF file count in rchar too: a run of the same
# binary with no I/O gives that base, the difference must be exact.
trun "$TMP/j.io0" -- "$H/iorw" "$TMP/io0.dat" 0
trun "$TMP/j.io" -- "$H/iorw" "$TMP/io.dat" 10485760
chk "rchar/wchar exact for a 10 MiB write and read" "$TMP/j.io" io 10485760 iorw "$TMP/j.io0"

echo "== exit codes and signals"
trun "$TMP/j.exit3" -- "$H/tiny" 3
chk "exit code 3 of the tool and of the job" "$TMP/j.exit3" exit tiny 3 3
SH=$(basename "$(readlink -f /bin/sh)")
trun "$TMP/j.sig" -- /bin/sh -c 'kill -KILL $$'
chk "death by SIGKILL" "$TMP/j.sig" exit "$SH" sig9 sig9
# the job's shell signals spin once it has exec'd (its comm says so)
trun "$TMP/j.term" -- /bin/bash -c ". '$TOP/tests/lib.sh'; '$H/spin' 5000 & p=\$!
	poll_until 10 grep -qx spin /proc/\$p/comm || { kill -KILL \$p; exit 9; }
	kill -TERM \$p; wait \$p; exit 0"
chk "child killed by SIGTERM" "$TMP/j.term" exit spin sig15 0

echo "== OOM kill in a memory-limited cgroup"
if [ -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/memory/tracer-it-$$
	mkdir "$CG_DIR" && echo $((64 << 20)) >"$CG_DIR/memory.limit_in_bytes"
	echo 0 >"$CG_DIR/memory.swappiness" 2>/dev/null
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/tracer-it-$$
	mkdir "$CG_DIR" && echo $((64 << 20)) >"$CG_DIR/memory.max" && echo 0 >"$CG_DIR/memory.swap.max" 2>/dev/null
fi
if [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ]; then
	trun "$TMP/j.oom" -- /bin/sh -c "echo \$\$ > $CG_DIR/cgroup.procs && exec $H/touchmem 512 100"
	chk "OOM victim recorded with oom_killed and SIGKILL" "$TMP/j.oom" oom
else
	fail "OOM test: no memory cgroup controller (v1 /sys/fs/cgroup/memory or v2 memory.max)"
fi

echo "== double-forking daemonizer"
# the job waits for its daemon (re-parented to tracer run, a subreaper) to exit
trun "$TMP/j.daemon" -- /bin/bash -c ". '$TOP/tests/lib.sh'; '$H/daemonize' 300
	poll_until 10 not pgrep -P \$PPID -x daemonize"
chk "daemonized grandchild attributed to the job" "$TMP/j.daemon" daemon daemonize
# a daemon that cannot end by itself: blocked opening a FIFO nobody writes
mkfifo "$TMP/outlive.fifo"
trun "$TMP/j.outlive" -- /bin/sh -c "setsid /bin/sh -c 'echo \$\$ >$TMP/outlive.pid; exec cat $TMP/outlive.fifo' </dev/null >/dev/null 2>&1 &"
if wait_until 10 "the outliving daemon to write its pid" test -s "$TMP/outlive.pid"; then
	chk "daemon still alive at the end listed as outliving" "$TMP/j.outlive" outlived "$(cat "$TMP/outlive.pid")"
	kill -TERM "$(cat "$TMP/outlive.pid")"
	wait_until 10 "the outliving daemon to exit on SIGTERM" proc_gone "$(cat "$TMP/outlive.pid")"
fi

echo "== registrant killed: the job ends when its last process exits"
"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.vanish" -- "$H/spin" 400 &
rpid=$!
registered_and_running() { [ -s "$TMP/j.vanish" ] && pgrep -P "$rpid" -x spin >/dev/null; }
wait_until 10 "tracer run to register and start spin" registered_and_running
kill -KILL "$rpid"; wait "$rpid" 2>/dev/null
# spin's 400 ms of CPU, then tracerd's 1 s grace; 20 s: does not hang
wait_until 20 "the summary of the job whose registrant was killed" summary_of_job "$TMP/j.vanish"
chk "job closed after its registrant was killed" "$TMP/j.vanish" tool spin "" 1

echo "== a job with a cgroup of its own"
JOB_CG=
if [ -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	JOB_CG=/sys/fs/cgroup/memory/tracer-job-it-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	JOB_CG=/sys/fs/cgroup/tracer-job-it-$$
fi
if [ -n "$JOB_CG" ] && mkdir "$JOB_CG"; then
	/bin/sh -c "echo \$\$ > $JOB_CG/cgroup.procs && exec $BUILD/tracer -o socket=$TRACERD_SOCK run --job-file $TMP/j.cg -- $H/touchmem 200 1500"
	chk "cgroup counters read for the job" "$TMP/j.cg" cgroup $((200 << 20))
	rmdir "$JOB_CG"
else
	fail "job cgroup test: cannot create a memory cgroup"
fi

echo "== interpreters and privacy"
cat >"$TMP/step.py" <<'PY'
import subprocess
for i in range(3):
    subprocess.run(["/bin/true"])
PY
trun "$TMP/j.py" -- python3 "$TMP/step.py"
chk "python script is the tool, python3 its interpreter" "$TMP/j.py" tool step.py python3
chk "its subprocesses recorded" "$TMP/j.py" tool true "" 3
trun "$TMP/j.secret" -- "$H/tiny" 0 --password=hunter2 "$(printf 'bad\xff\xfeutf8')" 'https://bob:s3cr3t@example.org/x'
chk "summary file is valid UTF-8 JSON with hostile argv" "$TMP/j.secret" tool tiny
chk "password redacted" "$TMP/j.secret" absent hunter2
chk "URL credentials redacted" "$TMP/j.secret" absent s3cr3t
# and the arguments are there, redacted: not absent for want of argv
chk "the password argument recorded as --password=***" "$TMP/j.secret" cmdline tiny "--password=***"
chk "the URL recorded with its credentials masked" "$TMP/j.secret" cmdline tiny "https://bob:***@example.org/x"

echo "== bad registration messages"
PYTHONPATH="$TOP/tests" python3 - "$TRACERD_SOCK" >"$TMP/bad.out" 2>&1 <<'PY'
import sys
import tracerd_req
def exchange(data, close_early=False):
    return tracerd_req.exchange(sys.argv[1], data, timeout=5, close_early=close_early)
r = exchange(b"this is not json\n"); print("garbage:", r); assert b'"ok":false' in r, r
r = exchange(b'{"op":"register","identity":\n'); print("truncated json:", r); assert b'"ok":false' in r, r
exchange(b'{"op":"register","identity":{"task_name":"x"', close_early=True)
r = exchange(b"x" * 70000 + b"\n"); print("oversized:", r[:80]); assert b'"ok":false' in r, r
r = exchange(b'{"op":"register","identity":{"task_name":' + b'"' + b"y" * 5000 + b'"}}\n'); print("long field:", r[:80]); assert b'"ok":false' in r, r
r = exchange(b'\x00\xff\xfe{}\n'); print("binary:", r); assert b'"ok":false' in r, r
PY
if [ $? -eq 0 ]; then pass "garbage, truncated, oversized messages get error replies"; else fail "bad messages"; sed 's/^/    /' "$TMP/bad.out"; fi
trun "$TMP/j.after" -- "$H/tiny" 0
chk "daemon still serving after bad messages" "$TMP/j.after" tool tiny
status_names_daemon() { tr_cli status | grep -q "^tracerd .*, pid $TRACERD_PID, "; }
check "tracer status reports this daemon (pid $TRACERD_PID)" status_names_daemon
# every job of this suite so far, by its uid
jobs_lists_ours() {
	local out uid missing=
	out=$(tr_cli jobs --limit 100) || return 1
	for f in "$TMP"/j.*; do
		uid=$(cat "$f")
		[ -n "$uid" ] || { echo "empty job file $f"; return 1; }
		awk -v u="$uid" '$1 == u { f = 1 } END { exit !f }' <<<"$out" || missing="$missing $uid"
	done
	[ -z "$missing" ] || { echo "not listed:$missing"; echo "$out"; return 1; }
}
check "tracer jobs lists every job of this suite by its uid" jobs_lists_ours
show_prints_py() {
	local out
	out=$(tr_cli show "$(cat "$TMP/j.py")") || return 1
	awk -v u="$(cat "$TMP/j.py")" '$1 == "Job" && $2 == u { f = 1 } END { exit !f }' <<<"$out" &&
		grep -q "^step\.py " <<<"$out" ||
		{ echo "$out"; return 1; }
}
check "tracer show prints the job asked for, with its tools" show_prints_py
no_archive() {
	local out rc
	out=$("$BUILD/tracer" -o socket="$TMP/nothing.sock" -o file="$TMP/none.ndjson" jobs 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$out" = "no finished job yet ($TMP/none.ndjson does not exist)" ] ||
		{ echo "rc $rc: $out"; return 1; }
	out=$("$BUILD/tracer" -o socket="$TMP/nothing.sock" -o file="$TMP/none.ndjson" jobs --json 2>&1)
	[ "$out" = "[]" ] || { echo "--json: $out"; return 1; }
	out=$("$BUILD/tracer" -o socket="$TMP/nothing.sock" -o file="$TMP/none.ndjson" show last 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q "no job last in $TMP/none.ndjson" <<<"$out" || { echo "show: rc $rc: $out"; return 1; }
}
check "without a summary file: tracer jobs says so, tracer show fails" no_archive

echo "== another user cannot end, join or impersonate"
# The victim: a job of root with an AWS Batch identity, so that it has a
# key another registration could join, held open until the checks are
# done: its command blocks reading a FIFO the test writes to at the end
# (the test holds a writer, so the command's open does not block).
OWN_JOB=ownership-$$
mkfifo "$TMP/owned.fifo"
exec 7<>"$TMP/owned.fifo"
env -u ECS_CONTAINER_METADATA_URI_V4 -u AWS_EC2_METADATA_SERVICE_ENDPOINT -u TRACER_OPTIONS \
	-u TRACER_CONFIG AWS_BATCH_JOB_ID="$OWN_JOB" AWS_BATCH_JOB_ATTEMPT=1 \
	"$BUILD/tracer-wrap" -v --socket "$TRACERD_SOCK" -- /bin/sh -c "read line <$TMP/owned.fifo" \
	2>"$TMP/owned.err" 7>&- &
OWNED_PID=$!
if wait_until 10 "the victim job to register" grep -q "registered with tracerd as job " "$TMP/owned.err"; then
	sed -n 's/.*registered with tracerd as job \([^ ]*\).*/\1/p' "$TMP/owned.err" >"$TMP/j.owned"
	# nobody may not read the tree: the script and its module are copied
	cp "$TOP/tests/tracerd_req.py" "$TMP/tracerd_req.py"
	cat >"$TMP/other.py" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracerd_req
def ask(req):
    return tracerd_req.ask(sys.argv[1], req, timeout=5)
def refused(what, req, error):
    r = ask(req)
    print(f"{what}: {r}")
    want = {"ok": False, "error": error}
    if r != want:
        sys.exit(f"{what}: got {r}, want {want}")
uid, aws_job = sys.argv[2], sys.argv[3]
key = f"aws-batch:{aws_job}#1"
SCHEDULER_IS_ROOTS = ("only root (the SPANK plugin, tracer-wrap as a container's init) "
                      "registers jobs of a scheduler")
refused("end by uid", {"op": "end", "v": 1, "job": uid, "status": 2304},
        f"no open job {uid} of yours")
refused("end by key", {"op": "end", "v": 1, "job": key, "status": 2304},
        f"no open job {key} of yours")
refused("task_exit", {"op": "task_exit", "v": 1, "job": uid, "status": 35584},
        f"no open job {uid} of yours")
refused("join", {"op": "register", "v": 1,
                 "identity": {"scheduler": "aws-batch", "job_id": aws_job, "attempt": 1}},
        SCHEDULER_IS_ROOTS)
refused("Slurm task", {"op": "register", "v": 1,
                       "identity": {"scheduler": "slurm", "job_id": "77", "step_id": "0"}},
        SCHEDULER_IS_ROOTS)
PY
	chmod 755 "$TMP"; chmod 644 "$TMP/other.py" "$TMP/tracerd_req.py" # nobody reaches the socket and the script
	if setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$TMP/other.py" \
		"$TRACERD_SOCK" "$(cat "$TMP/j.owned")" "$OWN_JOB" >"$TMP/other.out" 2>&1; then
		pass "a non-root user cannot end, report on or join root's job, nor register a Slurm task (exact refusals)"
	else
		fail "other user's requests"; sed 's/^/    /' "$TMP/other.out"
	fi
	# the job was still open through all of it: the refusals were not
	# about a job that had already ended
	still_open() { tr_cli status --json | python3 -c '
import json, sys
uid = sys.argv[1]
sys.exit(0 if any(j["job"] == uid for j in json.load(sys.stdin)["jobs"]["open_jobs"]) else 1)' "$(cat "$TMP/j.owned")"; }
	check "the victim job is still open after the other user's requests" still_open
	# tracer jobs: the open job is RUNNING, filtered like the finished ones
	running_listed() {
		local uid out
		uid=$(cat "$TMP/j.owned")
		out=$(tr_cli jobs -u root -s R,CD -S now-1hour) &&
			awk -v u="$uid" '/^RUNNING/ { r = 1 } /^FINISHED/ { r = 0 } r && $1 == u { f = 1 } END { exit !f }' <<<"$out" || { echo "$out"; return 1; }
		out=$(tr_cli jobs --state CD,F) && ! grep -q "^RUNNING" <<<"$out" || { echo "--state CD,F: $out"; return 1; }
		out=$(tr_cli jobs -u nobody) && ! grep -q "^RUNNING" <<<"$out" || { echo "-u nobody: $out"; return 1; }
		out=$(tr_cli jobs -E now-1day) && ! grep -q "^RUNNING" <<<"$out" || { echo "-E now-1day: $out"; return 1; }
	}
	check "tracer jobs lists the open job under RUNNING, and its filters hide it" running_listed
fi
echo go >&7
exec 7>&-
wait "$OWNED_PID"
rc=$?
OWNED_PID=
[ "$rc" = 0 ] && pass "the victim job's command ran to its end (exit 0)" || fail "victim job: exit $rc; $(cat "$TMP/owned.err")"
if [ -s "$TMP/j.owned" ]; then
	chk "the job closed by its own registrant, exit 0" "$TMP/j.owned" exit "$SH" 0 0
	chk "nothing of the other user's joined the job" "$TMP/j.owned" notool python3
fi

echo "== the registrant and commands that cannot run"
chk "tracer run is the job's registrant, not one of its tools" "$TMP/j.exit3" registrant tracer
printf 'not a program\n' >"$TMP/not-exec"; chmod 644 "$TMP/not-exec"
trun "$TMP/j.noexec" -- "$TMP/not-exec" 2>"$TMP/noexec.err"
rc=$?
if [ $rc -eq 126 ] && grep -q "tracer run: $TMP/not-exec: cannot execute: Permission denied" "$TMP/noexec.err"; then
	pass "a command that cannot be executed: 126 and the reason"
else fail "not executable: rc=$rc"; sed 's/^/    /' "$TMP/noexec.err"; fi
trun "$TMP/j.nocmd" -- no-such-command-here 2>"$TMP/nocmd.err"
rc=$?
if [ $rc -eq 127 ] && grep -q "tracer run: no-such-command-here: command not found" "$TMP/nocmd.err"; then
	pass "a command not found: 127, as the shell says"
else fail "not found: rc=$rc"; sed 's/^/    /' "$TMP/nocmd.err"; fi
wait_until 10 "the summary of the job whose command was not found" summary_of_job "$TMP/j.nocmd"
chk "the job of a command not found ends with exit code 127" "$TMP/j.nocmd" exit "(command not started)" 127 127

echo "== tracerd absent: the command still runs with its status"
"$BUILD/tracer" -o socket="$TMP/nothing.sock" run -- /bin/sh -c 'echo hello; exit 4' >"$TMP/absent.out" 2>&1
rc=$?
if [ $rc -eq 4 ] && grep -q hello "$TMP/absent.out"; then pass "untraced run keeps output and exit status"; else fail "untraced run: rc=$rc"; cat "$TMP/absent.out"; fi

stop_tracerd
if grep -qiE "AddressSanitizer|runtime error" "$TRACERD_LOG"; then fail "sanitizer report in tracerd log"; sed 's/^/    /' "$TRACERD_LOG"; fi

echo "== trace_all: processes outside any job go to the host job"
start_tracerd all -o trace_all=true || exit 1
"$H/tiny" 42
# no wait: on SIGTERM tracerd drains the ring buffer and, for a process
# already gone, waits for its exit record before writing the host job
stop_tracerd
check "unregistered process recorded in the host job" python3 - "$TRACERD_FILE" <<'PY'
import json, sys
hosts = [s for s in map(json.loads, open(sys.argv[1])) if s["identity"].get("scheduler") == "host"]
assert hosts, "no host job summary"
# other processes of the suite may have run a tiny too: one must be ours
tiny = [t for h in hosts for t in h["tools"] if t["tool"] == "tiny"]
assert any(e.get("code") == 42 for t in tiny for e in t["exit_codes"]), \
    [(t["tool"], t.get("path"), t["exit_codes"]) for h in hosts for t in h["tools"]]
PY
# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 20 $(summary_files "$TMP")
# the validator itself refuses what breaks the contract
schema_refuses() {
	local py
	py=$(schema_python) || return 1
	"$py" - "$1" "$TMP/broken.ndjson" <<'PY' || return 1
import json, sys
s = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as f:
    for mutate in ("del s['tools']", "s['start_ns'] = int(s['start_ns'])",
                   "s['process_tree'][0]['code'] = 'x'", "s['schema'] = 'tracer.job/1'"):
        b = json.loads(json.dumps(s))
        exec(mutate, {"s": b})
        f.write(json.dumps(b) + "\n")
    f.write(json.dumps(s)[:-1] + ', "job": "dup"}\n')
PY
	out=$("$py" "$TOP/tests/validate_summary.py" "$TMP/broken.ndjson")
	[ $? -eq 1 ] && [ "$(echo "$out" | grep -c "broken.ndjson:[0-9]*:")" -ge 5 ] || { echo "$out"; return 1; }
}
check "the schema check refuses summaries that break the contract" schema_refuses "$TMP/it.ndjson"
finish
