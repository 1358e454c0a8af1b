#!/bin/bash
# run.sh BUILD - tracer-wrap on the real kernel: a correct init as PID 1 of
# a new pid namespace and as a subreaper outside one, AWS identity from a
# loopback server playing ECS task metadata v4 and IMDSv2, standalone
# recording against wait4 ground truth, the standalone summary's analysis
# (flags, request, cost) against a Fargate task's size and a cgroup's
# memory limit, an OOM kill by that limit, and daemon mode through tracerd
# across a pid namespace.
# Needs root (pid namespaces, cgroups, tracerd).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
W=$BUILD/tracer-wrap
HERE=$TOP/tests/wrapper
TMP=$(mktemp -d /tmp/tracer-wrap-test.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK=$HERE/check.py
BG_PIDS=()   # started by the test, stopped by pid at the end
KILL_PIDS=() # processes left blocked on purpose, killed by pid at the end

cleanup() {
	for p in "${KILL_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_tracerd
	[ -n "${WRAP_CG:-}" ] && rmdir "$WRAP_CG" 2>/dev/null
	[ -n "${CPU_CG:-}" ] && rmdir "$CPU_CG" 2>/dev/null
	umount "$TMP/root/proc" 2>/dev/null
	rm -rf --one-file-system "$TMP"
}
trap cleanup EXIT
need_root

for f in "$W" "$H/spin" "$H/spawner"; do
	[ -x "$f" ] || { echo "FAIL: $f missing (make all)"; finish; exit 1; }
done
for c in python3 unshare ps strace pgrep; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; finish; exit 1; }
done
# tools with names of their own, so that each is a tool of its own
mkdir -p "$TMP/bin"
for t in a b c; do cp "$H/spin" "$TMP/bin/spin_$t"; done
cp "$H/spawner" "$TMP/bin/spawner"
B=$TMP/bin
# the suite must not see the machine's own settings or metadata
unset ECS_CONTAINER_METADATA_URI_V4 AWS_EC2_METADATA_SERVICE_ENDPOINT TRACER_OPTIONS \
	TRACER_CONFIG TRACER_RUN_ID TRACER_RUN_NAME TRACER_PIPELINE
for v in $(env | sed -n 's/^\(AWS_BATCH_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
NOSOCK=$TMP/no-such.sock

# wrap MODE ARGS...: tracer-wrap as PID 1 of a new pid namespace (ns) or
# as a subreaper in ours (sub); never finds a daemon unless told.
wrap() {
	mode=$1; shift
	if [ "$mode" = ns ]; then
		unshare --pid --fork --mount-proc "$W" --socket "$NOSOCK" -o file="$TMP/init.ndjson" "$@"
	else
		"$W" --socket "$NOSOCK" -o file="$TMP/init.ndjson" "$@"
	fi
}

# the host pid of the wrapper: itself, or the child of unshare
wrapper_pid() {
	if [ "$1" = ns ]; then ps -o pid= --ppid "$2" | tr -d ' ' | head -1; else echo "$2"; fi
}

# wait_file FILE WHAT: FILE has something in it within 10 s, or a FAIL
wait_file() { wait_until 10 "$2 (file $1)" test -s "$1"; }

for mode in ns sub; do
	echo "== init behaviour ($mode: $([ $mode = ns ] && echo 'PID 1 of a new pid namespace' || echo 'child subreaper'))"
	for code in 0 3 137 143; do
		wrap $mode -- sh -c "exit $code"
		rc=$?
		[ "$rc" = "$code" ] && pass "$mode: exit code $code comes through" \
			|| fail "$mode: exit code $code came out as $rc"
	done
	for sig in KILL TERM; do
		want=$([ $sig = KILL ] && echo 137 || echo 143)
		wrap $mode -- sh -c "kill -$sig \$\$"
		rc=$?
		[ "$rc" = "$want" ] && pass "$mode: death by SIG$sig gives $want" \
			|| fail "$mode: death by SIG$sig gave $rc, not $want"
	done

	# SIGTERM to the wrapper reaches the child, which exits on its own terms
	rm -f "$TMP/ready" "$TMP/term"
	child="trap 'echo got-TERM >$TMP/term; exit 7' TERM; echo \$\$ >$TMP/ready; while :; do sleep 0.05; done"
	if [ $mode = ns ]; then
		unshare --pid --fork --mount-proc "$W" --socket "$NOSOCK" -o file="$TMP/init.ndjson" -- sh -c "$child" &
	else
		"$W" --socket "$NOSOCK" -o file="$TMP/init.ndjson" -- sh -c "$child" &
	fi
	bg=$!
	BG_PIDS+=("$bg")
	if wait_file "$TMP/ready" "$mode: the child to start"; then
		wp=$(wrapper_pid $mode $bg)
		kill -TERM "$wp"
		wait_until 10 "$mode: the wrapper to exit after SIGTERM" proc_gone "$bg" ||
			kill -KILL "$bg" 2>/dev/null
		wait "$bg"
		rc=$?
		if [ -s "$TMP/term" ] && [ "$rc" = 7 ]; then
			pass "$mode: SIGTERM to the wrapper reaches the child (exit 7 back)"
		else
			fail "$mode: SIGTERM: child saw '$(cat "$TMP/term" 2>/dev/null)', wrapper exit $rc"
		fi
	else
		kill -KILL "$bg" 2>/dev/null
	fi

	# 100 orphaned grandchildren: re-parented to the wrapper, all reaped.
	# Each is a cat of a FIFO the job holds open, so they live until the
	# job lets go: counted once all are adopted, then released together.
	out=$TMP/orphans.$mode
	fifo=$TMP/orphans.$mode.fifo
	mkfifo "$fifo"
	wrap $mode -- bash -c '
		. "$1"; fifo=$2; w=$PPID
		count() { ps -o "$1"= --ppid $w | grep -c "$2"; }
		all_adopted() { [ "$(count comm "^cat$")" = 100 ]; }
		all_reaped() { [ "$(count comm "^cat$")" = 0 ] && [ "$(count stat "^Z")" = 0 ]; }
		exec 3<>"$fifo"
		for i in $(seq 100); do (cat "$fifo" >/dev/null 3>&- &); done
		poll_until 20 all_adopted
		echo adopted $(count comm "^cat$")
		exec 3>&-
		poll_until 20 all_reaped
		echo zombies $(count stat "^Z")
		echo left $(count comm "^cat$")' _ "$TOP/tests/lib.sh" "$fifo" >"$out"
	rc=$?
	if [ "$rc" = 0 ] && grep -qx "adopted 100" "$out" && grep -qx "zombies 0" "$out" &&
		grep -qx "left 0" "$out"; then
		pass "$mode: 100 orphaned grandchildren adopted and reaped, no zombie left"
	else
		fail "$mode: orphans (rc $rc): $(tr '\n' ' ' <"$out")"
	fi

	# stdin, stdout and stderr pass through
	got=$(printf 'line one\nline two\n' | wrap $mode -- sh -c 'cat; echo err >&2' 2>"$TMP/err")
	if [ "$got" = "$(printf 'line one\nline two')" ] && [ "$(cat "$TMP/err")" = err ]; then
		pass "$mode: stdin piped through, stdout and stderr untouched"
	else
		fail "$mode: stdin/stdout: got '$got', stderr '$(cat "$TMP/err")'"
	fi
done

echo "== terminal and process group"
if command -v script >/dev/null; then
	for pg in "" --pgroup; do
		out=$(script -qec "$W --socket $NOSOCK -o file=$TMP/tty.ndjson $pg -- sh -c 'test -t 0 && ps -o pgid=,tpgid= -p \$\$ && echo me \$\$ wrapper \$PPID'" /dev/null | tr -d '\r')
		set -- $out
		# pgid tpgid me PID wrapper PPID
		if [ "$pg" = --pgroup ]; then
			[ "${1:-}" = "${4:-x}" ] && [ "${2:-}" = "${4:-x}" ] \
				&& pass "--pgroup: the child leads its own group, which has the terminal's foreground" \
				|| fail "--pgroup on a terminal: '$out'"
		else
			[ "${1:-}" = "${2:-x}" ] && [ "${1:-}" != "${4:-x}" ] \
				&& pass "the child shares the terminal's foreground group with the wrapper" \
				|| fail "on a terminal: '$out'"
		fi
	done
	# ^C on the terminal: the child gets one SIGINT, not a second one from
	# us.  The child says when its handler is in place; ^C is typed then.
	cat >"$TMP/intcount.py" <<'PY'
import signal, sys, time
ready, done = sys.argv[1:3]
n = [0]
signal.signal(signal.SIGINT, lambda s, f: n.__setitem__(0, n[0] + 1))
open(ready, "w").close()
t = time.monotonic()
while n[0] == 0 and time.monotonic() - t < 20:
    time.sleep(0.02)
# A second SIGINT would come from the wrapper forwarding the one it got
# from the terminal, right after the first: this window is what "only
# once" means, it is not a wait for something to happen.
time.sleep(0.5)
print("sigint", n[0], flush=True)
open(done, "w").close()
PY
	for pg in "" --pgroup; do
		rm -f "$TMP/int.ready" "$TMP/int.done"
		# the typist keeps the terminal open until the child is done
		out=$( (poll_until 20 test -e "$TMP/int.ready" && printf '\003'
			poll_until 20 test -e "$TMP/int.done") | script -qec \
			"$W --socket $NOSOCK -o file=$TMP/tty.ndjson $pg -- python3 $TMP/intcount.py $TMP/int.ready $TMP/int.done" /dev/null |
			tr -d '\r' | grep -o 'sigint [0-9]*')
		[ "$out" = "sigint 1" ] && pass "^C on the terminal reaches the child once${pg:+ ($pg)}" \
			|| fail "^C on the terminal${pg:+ ($pg)}: '$out'"
	done
else
	fail "script (util-linux) is not installed: terminal checks cannot run"
fi
# --pgroup: a signal reaches the whole group, grandchildren included.
# The grandchild cannot end by itself: it blocks opening a FIFO nobody writes.
rm -f "$TMP/ready"
mkfifo "$TMP/pg.fifo"
"$W" --socket "$NOSOCK" -o file="$TMP/pg.ndjson" --pgroup -- sh -c \
	"cat $TMP/pg.fifo & echo \$! >$TMP/ready; wait" &
bg=$!
BG_PIDS+=("$bg")
if wait_file "$TMP/ready" "--pgroup: the child to start its grandchild"; then
	gc=$(cat "$TMP/ready")
	KILL_PIDS+=("$gc")
	kill -TERM "$bg"
	if wait_until 10 "--pgroup: SIGTERM to reach the grandchild $gc" proc_gone "$gc"; then
		pass "--pgroup: SIGTERM reaches the child's whole process group"
	else
		kill -KILL "$gc"
	fi
	wait "$bg"
fi

echo "== options and failures"
wrap sub -- /nonexistent/command 2>"$TMP/err"
rc=$?
[ "$rc" = 127 ] && grep -q "/nonexistent/command: No such file or directory" "$TMP/err" \
	&& pass "a missing file: exit 127, \"No such file or directory\" as the shell says" \
	|| fail "a missing file: exit $rc, stderr: $(cat "$TMP/err")"
wrap sub -- no-such-command-here 2>"$TMP/err"
rc=$?
[ "$rc" = 127 ] && grep -q "no-such-command-here: command not found" "$TMP/err" \
	&& pass "a command not on PATH: exit 127, \"command not found\" as the shell says" \
	|| fail "a command not on PATH: exit $rc, stderr: $(cat "$TMP/err")"
printf 'not a program\n' >"$TMP/not-exec"; chmod 644 "$TMP/not-exec"
wrap sub -- "$TMP/not-exec" 2>"$TMP/err"
rc=$?
[ "$rc" = 126 ] && grep -q "not-exec: cannot execute: Permission denied" "$TMP/err" \
	&& pass "a command that cannot be executed: exit 126 with the reason" \
	|| fail "a command that cannot be executed: exit $rc, stderr: $(cat "$TMP/err")"
rm -f "$TMP/init.ndjson" # earlier runs wrote there: this one must write its own
wrap sub -- sh -c 'exit 0' && [ -s "$TMP/init.ndjson" ] \
	&& pass "standalone writes a summary without any option" \
	|| fail "no standalone summary in $TMP/init.ndjson"
check "that summary is the standalone job's: source tracer-wrap, exit 0" \
	python3 "$CHECK" field "$TMP/init.ndjson" tracer.source=tracer-wrap exit.code=0
check "standalone says its network is not counted (no kernel programs): net_counting none" \
	python3 "$CHECK" field "$TMP/init.ndjson" net_counting=none
"$W" --bogus-option -- true 2>/dev/null
[ $? = 2 ] && pass "a bad option is a usage error (2)" || fail "bad option not refused"
out=$(cd "$TMP" && "$W" --socket "$NOSOCK" -o file="$TMP/x.ndjson" echo -n plain 2>&1)
[ "$out" = plain ] && pass "the command may follow the options without --" \
	|| fail "without --: '$out'"

echo "== metadata from a loopback server"
# meta MODE [LIFETIME_S]: start the server, sets PORT and META_PID;
# stopped by pid at exit
meta() {
	rm -f "$TMP/port.$1"
	python3 "$HERE/metaserver.py" "$TMP/port.$1" "$TMP/meta.$1.log" "$1" "${2:-120}" &
	META_PID=$!
	BG_PIDS+=("$META_PID")
	# python's start alone can take seconds on a loaded machine
	wait_until 60 "the metadata server ($1) to listen (file $TMP/port.$1)" test -s "$TMP/port.$1" || return 1
	PORT=$(cat "$TMP/port.$1")
}
aws_env() {
	env AWS_BATCH_JOB_ID=8c3e2f8a-1b2c-4d5e-9f00-aabbccddeeff:12 AWS_BATCH_JOB_ATTEMPT=2 \
		AWS_BATCH_JQ_NAME=genomics-spot AWS_BATCH_CE_NAME=spot-ce AWS_BATCH_JOB_ARRAY_INDEX=12 \
		AWS_BATCH_JOB_ARRAY_SIZE=50 ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:$PORT/v4/8f03e412-1234" \
		AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT/" "$@"
}
AWS_IDENTITY=(scheduler=aws-batch job_id=8c3e2f8a-1b2c-4d5e-9f00-aabbccddeeff:12
	array_job_id=8c3e2f8a-1b2c-4d5e-9f00-aabbccddeeff array_index=12 attempt=2
	run_id=8c3e2f8a-1b2c-4d5e-9f00-aabbccddeeff queue=genomics-spot labels.aws.ce_name=spot-ce
	labels.aws.array_size=50)
META_IDENTITY=(allocation.cpus=2 allocation.mem_bytes=4294967296 cluster=AWSBatch-ce-spot-4f1e
	run_name=nightly-2024-03-02
	labels.container.image=123456789012.dkr.ecr.us-east-1.amazonaws.com/bwa:0.7.17
	labels.container.name=default labels.ecs.task_family=bwa-jobdef labels.ecs.task_revision=7
	labels.ecs.launch_type=EC2 labels.aws.availability_zone=us-east-1b
	labels.ecs.task_arn=arn:aws:ecs:us-east-1:123456789012:task/AWSBatch-ce-spot-4f1e/8f03e41243824aea923aca126495f665
	labels.aws.instance_id=i-0abcdef1234567890 labels.aws.instance_type=c5.2xlarge
	labels.aws.region=us-east-1 labels.aws.lifecycle=spot)
if meta normal; then
	aws_env "$W" --socket "$NOSOCK" -o file="$TMP/meta.ndjson" -- true 2>"$TMP/meta.err"
	rc=$?
	[ "$rc" = 0 ] && pass "with good metadata the job runs (exit 0)" || fail "good metadata: exit $rc"
	check "AWS Batch variables read into the identity" python3 "$CHECK" identity "$TMP/meta.ndjson" "${AWS_IDENTITY[@]}"
	check "ECS container/task and IMDS identity and allocation read" python3 "$CHECK" identity "$TMP/meta.ndjson" "${META_IDENTITY[@]}"
	check "no tracer.task tag: the task is the job definition's (the ECS task definition's Family), the queue AWS_BATCH_JQ_NAME" \
		python3 "$CHECK" identity "$TMP/meta.ndjson" task_name=bwa-jobdef queue=genomics-spot
	[ ! -s "$TMP/meta.err" ] && pass "no warning with good metadata" || fail "warnings: $(cat "$TMP/meta.err")"
	check "IMDSv2: token by PUT with a TTL, then GETs with the token" python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
put = [r for r in reqs if r["method"] == "PUT" and r["path"] == "/latest/api/token"]
assert put and "X-aws-ec2-metadata-token-ttl-seconds" in put[0]["headers"], reqs
gets = [r for r in reqs if r["path"].startswith("/latest/") and r["method"] == "GET"]
assert len(gets) == 2 and all(r["headers"].get("X-aws-ec2-metadata-token") for r in gets), gets
' "$TMP/meta.normal.log"
fi
# one ECS task per job (the jobs mode of the server): the tracer.task tag
# wins over the task definition's family; without it, the family
mkdir -p "$TMP/jobs"
printf '{"vcpus": 1, "memory_mib": 512, "family": "align-jobdef", "tags": {"tracer.task": "align-tagged"}}' >"$TMP/jobs/tagged.json"
printf '{"vcpus": 1, "memory_mib": 512, "family": "align-jobdef", "tags": {}}' >"$TMP/jobs/untagged.json"
rm -f "$TMP/port.jobs"
python3 "$HERE/metaserver.py" "$TMP/port.jobs" "$TMP/meta.jobs.log" jobs 120 "$TMP/jobs" &
BG_PIDS+=("$!")
if wait_until 60 "the metadata server (jobs) to listen (file $TMP/port.jobs)" test -s "$TMP/port.jobs"; then
	JPORT=$(cat "$TMP/port.jobs")
	for j in tagged untagged; do
		env AWS_BATCH_JOB_ID="job-$j" AWS_BATCH_JQ_NAME=genomics-od \
			ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:$JPORT/v4/$j" \
			"$W" --socket "$NOSOCK" -o file="$TMP/jobdef.$j.ndjson" -- true 2>"$TMP/jobdef.$j.err" ||
			fail "job definition ($j): the job failed: $(cat "$TMP/jobdef.$j.err")"
	done
	check "a tracer.task tag names the task, not the job definition" \
		python3 "$CHECK" identity "$TMP/jobdef.tagged.ndjson" task_name=align-tagged labels.ecs.task_family=align-jobdef \
		queue=genomics-od scheduler=aws-batch
	check "without the tag, the job definition's task definition family names the task" \
		python3 "$CHECK" identity "$TMP/jobdef.untagged.ndjson" task_name=align-jobdef labels.ecs.task_family=align-jobdef \
		queue=genomics-od scheduler=aws-batch
fi
# the hanging server holds every call until it stops (600 s): tracer-wrap
# ends while it still holds them, or its per-call timeout was not kept
# (what the hang costs is measured by make bench)
if meta hang 600; then
	for t in 300 1000; do
		rm -f "$TMP/hang.ndjson"
		calls0=$(wc -l <"$TMP/meta.hang.log")
		s=$(date +%s%N)
		aws_env "$W" --socket "$NOSOCK" -o file="$TMP/hang.ndjson" -o metadata_timeout_ms=$t -- true 2>"$TMP/hang.err" &
		wpid=$!
		wait_until 60 "tracer-wrap to end while the endpoints hold its calls (per-call timeout $t ms)" \
			proc_gone "$wpid" || kill -KILL "$wpid"
		wait "$wpid"
		rc=$?
		ms=$((($(date +%s%N) - s) / 1000000))
		calls=$(($(wc -l <"$TMP/meta.hang.log") - calls0))
		echo "    information: tracer-wrap with hanging endpoints (per-call $t ms) took $ms ms, $calls calls"
		if [ "$rc" = 0 ] && [ "$calls" -ge 1 ] && kill -0 "$META_PID" 2>/dev/null &&
			[ "$(grep -c warning "$TMP/hang.err")" = 1 ]; then
			pass "hanging endpoints (per-call timeout $t ms): the job ran and ended while they held its $calls calls, one warning"
		else
			fail "hanging endpoints (per-call $t ms): rc $rc, $calls calls held, server $(kill -0 "$META_PID" 2>/dev/null && echo up || echo gone); $(cat "$TMP/hang.err")"
		fi
		check "a hanging endpoint ($t ms) still leaves the environment's identity" \
			python3 "$CHECK" identity "$TMP/hang.ndjson" "${AWS_IDENTITY[@]}"
	done
fi
if meta garbage; then
	aws_env "$W" --socket "$NOSOCK" -o file="$TMP/garbage.ndjson" -- sh -c 'exit 4' 2>"$TMP/garbage.err"
	rc=$?
	n=$(grep -c warning "$TMP/garbage.err")
	[ "$rc" = 4 ] && [ "$n" = 1 ] && pass "garbage JSON ignored with one warning" \
		|| fail "garbage JSON: rc $rc, $n warnings: $(cat "$TMP/garbage.err")"
	check "garbage JSON: the environment's identity kept, nothing from the garbage" \
		python3 "$CHECK" identity "$TMP/garbage.ndjson" "${AWS_IDENTITY[@]}" allocation.cpus=null \
		labels.container.id=null labels.aws.lifecycle=spot
fi
# off EC2 and with no endpoint set: no connection at all, none to IMDS
# (LeakSanitizer cannot run under ptrace: off for the sanitizer build)
strace -f -qq -e trace=connect,execve -o "$TMP/strace.log" \
	env AWS_BATCH_JOB_ID=x ASAN_OPTIONS=detect_leaks=0 "$W" --socket "$NOSOCK" -o file="$TMP/off.ndjson" -- true
rc=$?
if [ -f /sys/class/dmi/id/sys_vendor ] && grep -q "Amazon EC2" /sys/class/dmi/id/sys_vendor; then
	fail "this machine says it is EC2: the off-EC2 check cannot run here"
elif [ "$rc" != 0 ] || ! grep -q 'execve("[^"]*/tracer-wrap"' "$TMP/strace.log" 2>/dev/null ||
	! grep -q 'execve("[^"]*/true"' "$TMP/strace.log"; then
	# the log must show the wrapper and its command traced: an empty log
	# (strace not tracing) would prove nothing
	fail "off EC2: strace rc $rc, the wrapper and its command not both in the trace: $(head -3 "$TMP/strace.log" 2>/dev/null)"
elif grep -q "169.254" "$TMP/strace.log" || grep -q "AF_INET" "$TMP/strace.log"; then
	fail "network traffic off EC2: $(grep connect "$TMP/strace.log" | head -3)"
else
	pass "off EC2 without endpoints: no connection attempted, nothing to 169.254.169.254"
fi

echo "== standalone recording against wait4"
S=$TMP/standalone.ndjson
# spin_b and spin_c start together and end 2 s (two sampling intervals)
# apart: each is seen alive between the two ends and gets its own time.
# Ending within one interval, with their spawners, they would be sampled
# last at the same CPU time, and the rest of their time, known only as
# the sum their parent reaped, shared by their rates (tracker.c): a
# sample a little late made 3 s and 2 s read 2.5 s and 2.5 s.
for mode in sub ns; do
	rm -f "$S" "$TMP"/truth.*
	script="cd $TMP; $B/spawner truth.a 1 $B/spin_a 2500; $B/spawner truth.b 1 $B/spin_b 4000 &
		$B/spawner truth.c 1 $B/spin_c 2000; wait; sleep 1.3; exit 0"
	if [ $mode = ns ]; then
		unshare --pid --fork --mount-proc "$W" -v --socket "$NOSOCK" -o file="$S" -- bash -c "$script" 2>"$TMP/sa.err"
	else
		"$W" -v --socket "$NOSOCK" -o file="$S" -- bash -c "$script" 2>"$TMP/sa.err"
	fi
	rc=$?
	[ "$rc" = 0 ] && [ -s "$S" ] && pass "$mode: standalone job ran and wrote its summary" \
		|| fail "$mode: standalone rc $rc; $(cat "$TMP/sa.err")"
	check "$mode: per-tool CPU within 5% of wait4 for tools of 2 s and more" \
		python3 "$CHECK" cpu "$S" spin_a="$TMP/truth.a" spin_b="$TMP/truth.b" spin_c="$TMP/truth.c"
	check "$mode: every tool that lived one sampling interval is listed" \
		python3 "$CHECK" tools "$S" bash spawner spin_a spin_b spin_c sleep
	check "$mode: summary source, exit status and process count" \
		python3 "$CHECK" field "$S" tracer.source=tracer-wrap exit.code=0 processes.total=8 \
		tracer.sample_interval_ms=1000
	# The wrapper reports its own cost; its size is measured by make bench.
	# Here only a bound for "does not spin": a busy loop would show ~100%.
	cost=$(sed -n 's/.*the wrapper used .* (\([0-9.]*\)% of one core).*/\1/p' "$TMP/sa.err")
	if [ -n "$cost" ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 25.0 else 1)" "$cost"; then
		pass "$mode: the wrapper reports its own CPU ($cost% of one core) and does not spin (< 25%)"
	else
		fail "$mode: the wrapper's own CPU: '${cost:-unknown}'% of one core; $(grep cost "$TMP/sa.err")"
	fi
done

echo "== standalone analysis: flags, request and cost as tracerd adds them"
# the analysis of short jobs too (advice_min_runtime_s=0); the job holds
# a few MiB, far under its 4 GiB allocation: memory_overallocated
ANALYSIS_OPTS=(-o advice_min_runtime_s=0)
# on Fargate: the task's size (ECS task metadata) is the allocation, priced
# with Fargate's own default prices (price_fargate_*: no setting needed)
if meta fargate; then
	S=$TMP/fargate.ndjson
	env AWS_BATCH_JOB_ID=fargate-job-1 ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:$PORT/v4/8f03e412-1234" \
		unshare --pid --fork --mount-proc "$W" --socket "$NOSOCK" -o file="$S" "${ANALYSIS_OPTS[@]}" \
		--pipeline fargate-pipe -- "$H/spin" 300 2>"$TMP/fargate.err"
	rc=$?
	[ "$rc" = 0 ] && [ -s "$S" ] && pass "fargate: the standalone job ran and wrote its summary" \
		|| fail "fargate: rc $rc; $(cat "$TMP/fargate.err")"
	check "fargate: the allocation is the task's size (2 vCPUs, 4 GiB)" \
		python3 "$CHECK" identity "$S" labels.ecs.launch_type=FARGATE allocation.cpus=2 allocation.mem_bytes=4294967296
	check "fargate: flags, an AWS Batch request and a cost at Fargate's prices" \
		python3 "$CHECK" analysis "$S" fargate memory_overallocated
	check "fargate: the cost names Fargate's default prices" python3 "$CHECK" field "$S" \
		cost.price_fargate_vcpu_hour="$(sed -n 's/.*PRICE_FARGATE_VCPU_HOUR \([0-9.]*\).*/\1/p' "$TOP/lib/defaults.h")" \
		cost.price_fargate_gb_hour="$(sed -n 's/.*PRICE_FARGATE_GB_HOUR \([0-9.]*\).*/\1/p' "$TOP/lib/defaults.h")"
	# a Fargate job asks a size Fargate has (1 vCPU and 64 MiB is none:
	# 1 vCPU takes 2 to 8 GiB), in its summary and in tracer tune's
	# overrides; the sizes as botocore's service model lists them
	check "fargate: the summary's AWS Batch request is a size Fargate runs (botocore's list)" \
		python3 "$TOP/tests/tune/awsshape.py" --fargate-summary "$S"
	if "$BUILD/tracer" -o file="$S" tune --pipeline fargate-pipe --format aws-batch \
		-o "$TMP/fargate.tune.json" >"$TMP/fargate.tune.err" 2>&1; then
		check "fargate: tracer tune's AWS Batch overrides are a size Fargate runs" \
			python3 "$TOP/tests/tune/awsshape.py" --fargate "$TMP/fargate.tune.json"
	else
		fail "fargate: tracer tune --pipeline fargate-pipe: $(cat "$TMP/fargate.tune.err")"
	fi
fi
# without ECS metadata: the container's cgroup limits are its allocation
# (the wrapper is the init of its pid namespace, in a memory cgroup of
# its own with a 4 GiB limit and a CPU quota of half a CPU wherever the
# cpu controller is mounted: on a v1 host, alone or with cpuacct)
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	WRAP_CG=/sys/fs/cgroup/tracer-wrap-$$ WRAP_CG_LIMIT=memory.max
elif [ -d /sys/fs/cgroup/memory ]; then
	WRAP_CG=/sys/fs/cgroup/memory/tracer-wrap-$$ WRAP_CG_LIMIT=memory.limit_in_bytes
else
	WRAP_CG=
fi
if [ -z "$WRAP_CG" ]; then
	fail "no memory cgroup controller (v2 memory.max or v1 /sys/fs/cgroup/memory): cgroup limits untested"
elif ! mkdir "$WRAP_CG" || ! echo $((4 << 30)) >"$WRAP_CG/$WRAP_CG_LIMIT"; then
	fail "cannot make the memory cgroup $WRAP_CG with a 4 GiB limit"
elif ! cpu_quota_cgroup "tracer-wrap-$$" 50000 100000; then
	fail "cannot make a cgroup with a CPU quota of 0.5 CPUs (${CPU_CG:-no cpu controller})"
else
	S=$TMP/cglimit.ndjson
	echo "   (CPU quota in the $CPU_CG_LAYOUT)"
	/bin/sh -c 'for d in $0; do echo $$ >"$d/cgroup.procs" || exit 97; done; exec "$@"' "$WRAP_CG $CPU_CG" \
		unshare --pid --fork --mount-proc "$W" --socket "$NOSOCK" -o file="$S" "${ANALYSIS_OPTS[@]}" \
		-o price_cpu_hour=0.05 -o price_gb_hour=0.01 -- "$H/spin" 300 2>"$TMP/cglimit.err"
	rc=$?
	[ "$rc" = 0 ] && [ -s "$S" ] && pass "cgroup limit: the standalone job ran and wrote its summary" \
		|| fail "cgroup limit: rc $rc; $(cat "$TMP/cglimit.err")"
	check "cgroup limit: the container's 4 GiB limit is the allocation" \
		python3 "$CHECK" identity "$S" allocation.mem_bytes=4294967296
	check "cgroup limit: the summary shows the limit (cgroup_limits)" \
		python3 "$CHECK" field "$S" cgroup_limits.mem_bytes=4294967296
	check "cgroup limit: the CPU quota (0.5 CPUs, $CPU_CG_LAYOUT) is the allocation, 1 CPU" \
		python3 "$CHECK" identity "$S" allocation.cpus=1
	check "cgroup limit: the summary shows the CPU quota (cgroup_limits)" \
		python3 "$CHECK" field "$S" cgroup_limits.cpus=0.5
	check "cgroup limit: flags, an AWS Batch request and a cost at the configured prices" \
		python3 "$CHECK" analysis "$S" resources memory_overallocated
	# an OOM kill by the container's limit (64 MiB, no swap): of the
	# wrapper's child (exit 137), and of a tool under a shell that reaps
	# it and exits 0; both are the job's OOM, described as tracerd does
	hog="x = bytearray(256 << 20)"
	[ -x /usr/bin/python3 ] || fail "/usr/bin/python3 is not installed: the OOM cases cannot run"
	if echo $((64 << 20)) >"$WRAP_CG/$WRAP_CG_LIMIT" &&
		{ [ ! -f "$WRAP_CG/memory.memsw.limit_in_bytes" ] || echo $((64 << 20)) >"$WRAP_CG/memory.memsw.limit_in_bytes"; } &&
		{ [ ! -f "$WRAP_CG/memory.swap.max" ] || echo 0 >"$WRAP_CG/memory.swap.max"; }; then
		for how in child shell; do
			S=$TMP/oom.$how.ndjson
			if [ $how = child ]; then
				set -- /usr/bin/python3 -c "$hog"
				want=137 victim=$(basename "$(readlink -f /usr/bin/python3)")
			else
				set -- sh -c "/usr/bin/python3 -c '$hog'; exit 0"
				want=0 victim='?'
			fi
			/bin/sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$WRAP_CG" \
				unshare --pid --fork --mount-proc "$W" --socket "$NOSOCK" -o file="$S" -- "$@" 2>"$TMP/oom.err"
			rc=$?
			[ "$rc" = "$want" ] && [ -s "$S" ] && pass "OOM kill ($how): exit $want, a summary written" \
				|| fail "OOM kill ($how): rc $rc (want $want); $(cat "$TMP/oom.err")"
			check "OOM kill ($how): OUT_OF_MEMORY, a cgroup kill at the container's 64 MiB, victim $victim" \
				python3 "$CHECK" field "$S" state=OUT_OF_MEMORY oom.kind=cgroup oom.kills=1 \
				oom.limit_bytes=$((64 << 20)) oom.victim.tool="$victim"
		done
		check "OOM kill (shell): the oom_killed flag says a process of the job, naming none" \
			python3 -c '
import json, sys
s = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
m = [f["message"] for f in s["flags"] if f["id"] == "oom_killed"]
assert m == ["the OOM killer stopped a process of the job (cgroup OOM)"], m
' "$TMP/oom.shell.ndjson"
	else
		fail "cannot set a 64 MiB limit without swap on $WRAP_CG"
	fi
	# every process of the job has exited (the wrapper waited for them)
	if [ "$CPU_CG" != "$WRAP_CG" ]; then
		rmdir "$CPU_CG" 2>/dev/null || fail "cannot remove $CPU_CG: $(cat "$CPU_CG/cgroup.procs" 2>&1)"
	fi
	rmdir "$WRAP_CG" 2>/dev/null || fail "cannot remove $WRAP_CG: $(cat "$WRAP_CG/cgroup.procs" 2>&1)"
	WRAP_CG= CPU_CG=
fi

echo "== io_bound needs evidence of I/O (standalone: storage bytes per second off the CPU)"
# Without delay accounting or a cgroup's io pressure, off-CPU time is not
# split by what it waited for: a job that writes a few KB and sleeps is
# off the CPU as much as one that waits on its disk.  Only the second
# moves storage bytes at flag_io_bound_min_bytes_per_s.
cat >"$TMP/sleeper.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, b"x" * 8192)
os.fsync(fd)
os.close(fd)
time.sleep(3)
PY
# reads a file with O_DIRECT (never from the page cache) for 3 s
cat >"$TMP/direct.py" <<'PY'
import mmap, os, sys, time
buf = mmap.mmap(-1, 1 << 20)  # page-aligned, as O_DIRECT needs
end = time.monotonic() + 3
while time.monotonic() < end:
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
    while time.monotonic() < end and os.readv(fd, [buf]) == len(buf):
        pass
    os.close(fd)
PY
# io_flags NDJSON: "job=yes|no tool=yes|no write=BYTES read=BYTES delayacct=on|off"
io_flags() {
	python3 -c '
import json, sys
s = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
f = [x for x in s.get("flags") or [] if x["id"] == "io_bound"]
t = s["totals"]
print("job=%s tool=%s write=%d read=%d delayacct=%s" % (
    "yes" if any("tool" not in x for x in f) else "no",
    "yes" if any("tool" in x for x in f) else "no", t["write_bytes"], t["read_bytes"],
    (s.get("blocked") or {}).get("delay_accounting")))' "$1"
}
fs=$(stat -f -c %T "$TMP")
if [ "$fs" = tmpfs ]; then
	fail "$TMP is on tmpfs: no storage I/O to test io_bound with (O_DIRECT, write_bytes)"
else
	S=$TMP/sleeper.ndjson
	"$W" --socket "$NOSOCK" -o file="$S" "${ANALYSIS_OPTS[@]}" -- python3 "$TMP/sleeper.py" "$TMP/small.dat" 2>"$TMP/sleeper.err"
	got=$(io_flags "$S" 2>&1)
	# the positive marker: the 8 KiB written were seen, the flags computed
	case $got in
	"job=no tool=no write="[1-9]*) pass "a job that writes 8 KiB and sleeps 3 s: no io_bound ($got)" ;;
	*) fail "a job that writes 8 KiB and sleeps 3 s: '$got' (want no io_bound, its write seen); $(cat "$TMP/sleeper.err")" ;;
	esac
	dd if=/dev/urandom of="$TMP/big.dat" bs=1M count=64 conv=fsync status=none ||
		fail "cannot write the 64 MiB file to read"
	S=$TMP/direct.ndjson
	"$W" --socket "$NOSOCK" -o file="$S" "${ANALYSIS_OPTS[@]}" -- python3 "$TMP/direct.py" "$TMP/big.dat" 2>"$TMP/direct.err"
	got=$(io_flags "$S" 2>&1)
	case $got in
	"job=yes tool=yes "*) pass "a job that reads a file with O_DIRECT for 3 s: io_bound, job and tool ($got)" ;;
	*) fail "a job that reads with O_DIRECT for 3 s: '$got' (want io_bound for the job and its tool); $(cat "$TMP/direct.err")" ;;
	esac
fi

echo "== the self-contained bundle in an empty root (contrib/aws-batch)"
ROOT=$TMP/root
if ! command -v patchelf >/dev/null; then
	fail "patchelf is not installed: contrib/aws-batch/bundle.sh cannot be tested"
elif ! PREFIX=/opt/tracer "$TOP/contrib/aws-batch/bundle.sh" "$W" "$ROOT/opt/tracer" >"$TMP/bundle.log" 2>&1; then
	fail "bundle.sh failed: $(cat "$TMP/bundle.log")"
else
	mkdir -p "$ROOT/proc" "$ROOT/tmp"
	cp "$H/spin" "$ROOT/spin"
	# only the bundle and a static command: no libc, no shell in the root
	if mount -t proc proc "$ROOT/proc"; then
		meta normal
		aws_env chroot "$ROOT" /opt/tracer/bin/tracer-wrap --socket /none -o file=/jobs.ndjson \
			-- /spin 200 2>"$TMP/bundle.err"
		rc=$?
		umount "$ROOT/proc"
		[ "$rc" = 0 ] && [ -s "$ROOT/jobs.ndjson" ] \
			&& pass "the bundle runs in a root without any library and writes the summary" \
			|| fail "bundle in an empty root: rc $rc; $(cat "$TMP/bundle.err")"
		check "the bundle's own libcurl fetched the metadata" \
			python3 "$CHECK" identity "$ROOT/jobs.ndjson" labels.container.image=123456789012.dkr.ecr.us-east-1.amazonaws.com/bwa:0.7.17 \
			labels.aws.lifecycle=spot
	else
		fail "cannot mount /proc in the test root"
	fi
fi

echo "== daemon mode across a pid namespace"
if [ ! -x "$BUILD/tracerd" ]; then
	fail "$BUILD/tracerd missing (make all)"
elif start_tracerd wrap && meta normal; then
	rm -f "$TMP"/truth.*
	aws_env unshare --pid --fork --mount-proc "$W" -v --socket "$TRACERD_SOCK" -- bash -c \
		"cd $TMP; $B/spawner truth.a 1 $B/spin_a 700; $B/spawner truth.t 30 $H/tiny 0; sleep 0.2; exit 6" \
		2>"$TMP/daemon.err"
	rc=$?
	[ "$rc" = 6 ] && grep -q "registered with tracerd" "$TMP/daemon.err" \
		&& pass "daemon mode: registered, exit code 6 back" \
		|| fail "daemon mode: rc $rc; $(cat "$TMP/daemon.err")"
	wait_until 10 "tracerd's summary of the wrapped job" \
		python3 "$CHECK" identity "$TRACERD_FILE" job_id=8c3e2f8a-1b2c-4d5e-9f00-aabbccddeeff:12
	check "daemon mode: tracerd's summary carries the AWS identity" \
		python3 "$CHECK" identity "$TRACERD_FILE" "${AWS_IDENTITY[@]}" "${META_IDENTITY[@]}"
	check "daemon mode: every tool is in tracerd's summary" \
		python3 "$CHECK" tools "$TRACERD_FILE" bash spawner spin_a tiny sleep
	check "daemon mode: tracer-wrap is the job's registrant, not one of its tools" \
		python3 "$CHECK" registrant "$TRACERD_FILE" tracer-wrap
	check "daemon mode: all 30 short processes and the exit status" \
		python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
tiny = [t for t in s["tools"] if t["tool"] == "tiny"][0]
assert tiny["processes"] == 30, tiny
assert s["exit"]["code"] == 6, s["exit"]
assert s["tracer"]["source"] == "tracerd", s["tracer"]
' "$TRACERD_FILE"
	stop_tracerd
fi

# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 10 $(summary_files "$TMP")
finish
