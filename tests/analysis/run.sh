#!/bin/bash
# run.sh BUILD - the analysis fields of the summary on the real kernel:
# own peak memory of a tool after its exec, run-queue delay, the job's
# state word, OOM victim and largest holder, flags.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-an.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/analysis/check.py"
CG_DIR=
JOB_CGS=
DA_OLD=
META_PID=
# a second user for the history that is kept per user
UB=tracer-anb
UGRP=tracer-anadm
MADE_USERS=()
MADE_GROUP=

cleanup() {
	[ -n "$META_PID" ] && kill "$META_PID" 2>/dev/null
	[ -p "$TMP/oom.fifo" ] && touch "$TMP/oom.go" # the OOM job lets holder go
	stop_tracerd
	[ -n "$CG_DIR" ] && rmdir "$CG_DIR" 2>/dev/null
	for d in $JOB_CGS; do rmdir "$d" 2>/dev/null; done
	[ -n "$DA_OLD" ] && echo "$DA_OLD" >/proc/sys/kernel/task_delayacct
	remove_test_users
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for h in spin spawner touchmem tiny spinthreads; do
	[ -x "$H/$h" ] || { echo "FAIL: helper $H/$h missing (make all)"; exit 1; }
done
PY=$(command -v python3) || { echo "FAIL: python3 is not installed"; exit 1; }
PY=$("$PY" -c 'import sys; print(sys.executable)')
for c in taskset setsid setpriv useradd userdel groupadd groupdel; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (util-linux)"; exit 1; }
done
# a small minimum runtime for advice, frequent samples, a CPU price
# and idle_host after 2 s without a job whatever the CPU use (share 1)
# (and a GiB price, a spot instance price)
command -v curl >/dev/null || { echo "FAIL: curl is not installed"; exit 1; }
# the first free port of 18411-18499 (another copy of this suite may run)
MPORT=$(free_port 18411 18499) || { echo "FAIL: no free port in 18411-18499 for metrics_listen"; exit 1; }
start_tracerd an -o advice_min_runtime_s=1 -o sample_interval_ms=200 -o price_cpu_hour=3.6 -o stall_threshold_s=3 \
	-o idle_host_cpu_share=1 -o idle_host_after_s=2 -o metrics_listen=127.0.0.1:$MPORT \
	-o price_gb_hour=0.5 -o price_spot_instance_hour=0.9 || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }
status_says() { tr_cli status | grep -q -- "$1"; }

echo "== idle_host"
idle_is() {
	tr_cli status --json | python3 -c 'import json, sys
sys.exit(0 if json.load(sys.stdin)["idle_host"]["idle"] == (sys.argv[1] == "yes") else 1)' "$1"
}
gauge_is() { curl -sf --max-time 5 "http://127.0.0.1:$MPORT/metrics" | grep -qx "tracer_host_idle $1"; }
check "no job for idle_host_after_s (2 s): idle_host in tracer status --json" poll_until 30 idle_is yes
check "tracer status: idle_host: yes" status_says "^idle_host: yes"
check "/metrics: tracer_host_idle 1" poll_until 10 gauge_is 1
check "idle_host logged once when it starts" sh -c "[ \$(grep -c 'idle_host: no job' '$TRACERD_LOG') -eq 1 ]"
# a job open until the checks are done (the stop file)
tr_cli run --job-file "$TMP/j.idle" --name idle-end -- /bin/sh -c \
	"while [ ! -e '$TMP/idle.stop' ]; do sleep 0.2; done" &
ipid=$!
if wait_until 10 "tracer run to register" test -s "$TMP/j.idle"; then
	check "a job open: idle_host ends" poll_until 10 idle_is no
	check "a job open: tracer_host_idle 0" poll_until 10 gauge_is 0
	check "its end logged" grep -q "idle_host ended: a job opened" "$TRACERD_LOG"
fi
touch "$TMP/idle.stop"
wait "$ipid"

echo "== own peak memory after exec"
cat >"$TMP/big.py" <<'PY'
import subprocess
b = bytearray(300 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
subprocess.run(["/bin/true"], check=True)
PY
trun "$TMP/j.peak" -- "$H/spawner" "$TMP/truth.peak" 1 "$PY" "$TMP/big.py"
chk "true exec'd from a 300 MiB Python: own peak < 10 MiB, maxrss keeps the parent's" "$TMP/j.peak" own_peak true 10 250
chk "the 300 MiB step's own peak within 2% of wait4" "$TMP/j.peak" own_peak_truth big.py "$TMP/truth.peak"

echo "== run-queue delay"
trun "$TMP/j.delay" -- taskset -c 0 /bin/sh -c "for i in 1 2 3 4; do '$H/spin' 1000 & done; wait"
chk "four burners on one core: run-queue delay >= 50% of their wall" "$TMP/j.delay" run_delay spin 4 0.5
chk "four burners on one core: contended" "$TMP/j.delay" flag contended

echo "== state word"
trun "$TMP/j.exit3" -- "$H/tiny" 3
chk "exit 3: FAILED with exit code 3" "$TMP/j.exit3" state FAILED 3
trun "$TMP/j.ok" -- "$H/tiny" 0
chk "exit 0: COMPLETED" "$TMP/j.ok" state COMPLETED 0
"$BUILD/tracer" -o socket="$TRACERD_SOCK" run --job-file "$TMP/j.term" -- "$H/spin" 60000 &
rpid=$!
spin_running() { [ -s "$TMP/j.term" ] && pgrep -P "$rpid" -x spin >/dev/null; }
if wait_until 10 "tracer run to start spin" spin_running; then
	kill -TERM "$(pgrep -P "$rpid" -x spin)"
	wait "$rpid" 2>/dev/null
	wait_until 20 "the summary of the cancelled job" summary_of_job "$TMP/j.term"
	chk "SIGTERM from outside: CANCELLED" "$TMP/j.term" state CANCELLED None
else
	kill -KILL "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
fi

echo "== cgroup OOM with two tools"
if [ -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/memory/tracer-an-$$
	mkdir "$CG_DIR" && echo $((128 << 20)) >"$CG_DIR/memory.limit_in_bytes"
	echo 0 >"$CG_DIR/memory.swappiness" 2>/dev/null
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/tracer-an-$$
	mkdir "$CG_DIR" && echo $((128 << 20)) >"$CG_DIR/memory.max" && echo 0 >"$CG_DIR/memory.swap.max" 2>/dev/null
fi
if [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ]; then
	cp "$H/touchmem" "$TMP/holder"
	mkfifo "$TMP/oom.fifo"
	# holder keeps 80 MiB; touchmem, preferred by the OOM killer
	# (oom_score_adj 1000), grows until the 128 MiB limit: it is the
	# victim, holder the largest holder.  tracerd reads the job's RSS
	# when the kill's record arrives: holder lives on until it has (the
	# go file), the job's shell waiting without a process of its own
	# (read -t on a silent FIFO is a builtin wait)
	tr_cli run --job-file "$TMP/j.oom" -- /bin/bash -c ". '$TOP/tests/lib.sh'; echo \$\$ > $CG_DIR/cgroup.procs
		'$TMP/holder' 80 120000 & h=\$!
		holding() { [ \$(awk '/VmRSS/ {print \$2}' /proc/\$h/status) -ge 81000 ]; }
		poll_until 20 holding || { kill \$h; exit 9; }
		/bin/sh -c 'echo 1000 > /proc/self/oom_score_adj && exec $H/touchmem 512 100'
		: >'$TMP/oom.killed'; exec 9<>'$TMP/oom.fifo'
		until [ -e '$TMP/oom.go' ] || [ \$SECONDS -gt 120 ]; do read -t 0.05 -u 9; done
		kill \$h; wait \$h; exit 0" >/dev/null 2>&1 &
	opid=$!
	# the kill's record came before the victim's exit record (one ring
	# buffer, in order): taken in once the job is down to tracer run, its
	# shell and holder, after the shell saw the victim end
	live_is() {
		tr_cli status --json | python3 -c '
import json, sys
uid = open(sys.argv[1]).read().strip()
sys.exit(0 if [j["live"] for j in json.load(sys.stdin)["jobs"]["open_jobs"] if j["job"] == uid] == [int(sys.argv[2])] else 1)' "$1" "$2"
	}
	oom_taken() { [ -e "$TMP/oom.killed" ] && live_is "$TMP/j.oom" 3; }
	oom_taken_or_ended() { oom_taken || proc_gone "$opid"; }
	poll_until 60 oom_taken_or_ended
	check "tracerd took the OOM kill in (the victim's exit record read) while holder lived" oom_taken
	touch "$TMP/oom.go"
	wait "$opid"
	chk "cgroup OOM: state OUT_OF_MEMORY" "$TMP/j.oom" state OUT_OF_MEMORY
	chk "cgroup OOM: victim touchmem, largest holder named, kind cgroup" "$TMP/j.oom" oom_detail touchmem holder cgroup
else
	fail "OOM test: no memory cgroup controller (v1 /sys/fs/cgroup/memory or v2 memory.max)"
fi

echo "== a single-threaded burner in a 2-CPU allocation"
# tracer run's affinity is CPUs 0-1 (the allocation); the burner runs on CPU 1
trun "$TMP/j.serial" --name serial-burner --cpus 2 -- taskset -c 1 "$H/spin" 3000
chk "CPU 1 busy > 90%, CPU 0 idle by number" "$TMP/j.serial" busy 1 0.9 0
chk "idle_allocation raised, naming CPU 0" "$TMP/j.serial" flag idle_allocation present "CPUs 0 "
chk "serial_in_parallel_allocation raised" "$TMP/j.serial" flag serial_in_parallel_allocation
chk "recommendation: 1 CPU in Slurm, Nextflow, Snakemake and AWS Batch syntax" "$TMP/j.serial" rec_cpus 1
chk "cost = wall x 2 CPUs x price_cpu_hour; used, unused, tools sum to used" "$TMP/j.serial" cost 2 3.6
show_has() { tr_cli show "$(cat "$1")" | grep -q -- "$2"; }
check "tracer show: the flags" show_has "$TMP/j.serial" "serial_in_parallel_allocation"
check "tracer show: the request in Slurm syntax" show_has "$TMP/j.serial" "--cpus-per-task=1 "
check "tracer show: the state word" show_has "$TMP/j.serial" "^State    COMPLETED"

echo "== three busy threads in a 4-CPU allocation"
# one process, three threads always runnable (on this 2-CPU machine too):
# concurrency counts threads, not processes
trun "$TMP/j.threads" --name three-threads --cpus 4 -- "$H/spinthreads" 3 3000
chk "three busy threads: concurrency p95 = 3" "$TMP/j.threads" concurrency 3
chk "three busy threads: recommendation 3 CPUs in four syntaxes" "$TMP/j.threads" rec_cpus 3

echo "== a tool asleep while the job idles, and a pipe's reader asleep while it works"
# cat waits for spin's output the whole time spin burns a CPU; then the
# job does nothing but sleep: sleep alone holds the allocation idle
trun "$TMP/j.sleep" --name sleeper --cpus 1 -- /bin/sh -c "'$H/spin' 1500 | cat; sleep 2"
chk "sleeping_tool names sleep, not cat (the job busy) nor the shell" "$TMP/j.sleep" sleeping sleep cat
check "tracer show: the sleeping_tool note" show_has "$TMP/j.sleep" "sleeping_tool"

echo "== cost of CPU and memory, per tool; spot from the AWS identity"
# job_file_of FILE JOB_ID: the uid of the summary of that AWS Batch job id into FILE
job_file_of() {
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    # idle_host records (this tracerd goes idle after 2 s) have no identity
    if s.get("identity", {}).get("job_id") == sys.argv[3]:
        open(sys.argv[2], "w").write(s["job"])
        sys.exit(0)
sys.exit(1)' "$TRACERD_FILE" "$1" "$2"
}
trun "$TMP/j.cost" --cpus 1 --mem 1G -- /bin/sh -c "'$H/spin' 800; '$H/touchmem' 200 800"
chk "cost = wall x (1 CPU x price_cpu_hour + 1 GiB x price_gb_hour); tools sum to used" "$TMP/j.cost" cost 1 3.6 0.5 1
rm -f "$TMP/meta.port"
"$PY" "$TOP/tests/wrapper/metaserver.py" "$TMP/meta.port" "$TMP/meta.log" normal 120 &
META_PID=$!
if wait_until 10 "the loopback metadata server to listen" test -s "$TMP/meta.port"; then
	port=$(cat "$TMP/meta.port")
	env AWS_BATCH_JOB_ID=cost-spot-1 AWS_BATCH_JOB_ATTEMPT=1 AWS_BATCH_JQ_NAME=q \
		AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$port/" \
		"$BUILD/tracer-wrap" --socket "$TRACERD_SOCK" -- "$H/spin" 500 2>"$TMP/wrap.err" ||
		fail "tracer-wrap on a spot instance: $(cat "$TMP/wrap.err")"
	wait_until 10 "the spot job's summary" job_file_of "$TMP/j.spot" cost-spot-1
	chk "spot instance (IMDS instance-life-cycle): pricing spot at price_spot_instance_hour" "$TMP/j.spot" cost_spot 0.9
fi
kill "$META_PID" 2>/dev/null
wait "$META_PID" 2>/dev/null

echo "== an fsync loop"
cat >"$TMP/fsync.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
end = time.monotonic() + 3
while time.monotonic() < end:
    os.write(fd, b"x" * 4096)
    os.fsync(fd)
os.close(fd)
PY
trun "$TMP/j.fsync" --name fsync-loop -- "$PY" "$TMP/fsync.py" "$TMP/fsync.dat"
chk "fsync loop: io_bound" "$TMP/j.fsync" flag io_bound present fsync.py
chk "fsync loop: the job io_bound too (storage I/O, no delay accounting needed)" "$TMP/j.fsync" job_flag io_bound

echo "== blocked time, cgroup pressure, the cgroup's limits as the allocation"
# delay accounting on for this part (the value before is restored at exit)
DA_OLD=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null) ||
	fail "kernel.task_delayacct absent: a kernel without delay accounting"
[ -n "$DA_OLD" ] && echo 1 >/proc/sys/kernel/task_delayacct
check "tracer status: delay accounting on, PSI on" status_says "delay accounting on; PSI host yes, cgroups yes"
# job_cgroups NAME MEM_BYTES: cgroups made for one job (named tracer-job-*):
# a v1 memory cgroup with the limit and the v2 one (PSI) on a hybrid
# hierarchy, one v2 cgroup with memory.max on a pure v2 one.  CG_PROCS:
# the cgroup.procs files to join.
job_cgroups() {
	local v2 m
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		v2=/sys/fs/cgroup/tracer-job-$1-$$
		mkdir "$v2" && JOB_CGS="$JOB_CGS $v2" && echo "$2" >"$v2/memory.max" || return 1
		CG_PROCS="$v2/cgroup.procs"
	else
		m=/sys/fs/cgroup/memory/tracer-job-$1-$$ v2=/sys/fs/cgroup/unified/tracer-job-$1-$$
		mkdir "$m" && JOB_CGS="$JOB_CGS $m" && echo "$2" >"$m/memory.limit_in_bytes" || return 1
		echo 0 >"$m/memory.swappiness" 2>/dev/null
		mkdir "$v2" && JOB_CGS="$JOB_CGS $v2" || return 1
		CG_PROCS="$m/cgroup.procs $v2/cgroup.procs"
	fi
}
# in_cgroups PROCS_FILES -- tracer run ARGS: tracer run (the registrant)
# joins the cgroups before it registers the job
in_cgroups() {
	local files=$1; shift 2
	/bin/sh -c 'for f in $0; do echo $$ > "$f" || exit 97; done; exec "$@"' "$files" "$@"
}
if job_cgroups fsync $((1 << 30)); then
	# fsyncs for 3 s, whatever the disk's speed (a fixed count takes 0.2 s
	# on an idle machine: under advice_min_runtime_s, and between samples);
	# an idle run here: 4,198 fsyncs, 1.67 s of block I/O delay
	cat >"$TMP/fsync3s.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
end = time.monotonic() + 3
while time.monotonic() < end:
    os.write(fd, b"x" * 4096)
    os.fsync(fd)
os.close(fd)
PY
	in_cgroups "$CG_PROCS" -- "$BUILD/tracer" -o socket="$TRACERD_SOCK" run --job-file "$TMP/j.fsynccg" \
		--name fsync-cg -- "$PY" "$TMP/fsync3s.py" "$TMP/fsync.dat"
	chk "fsync loop: block I/O delay >= 0.5 s, io pressure of its cgroup" "$TMP/j.fsynccg" blocked 0.5 psi
	chk "fsync loop: its tool's and process's block I/O delay >= 0.5 s" "$TMP/j.fsynccg" tool_blkio fsync3s.py 0.5
	chk "fsync loop: the job io_bound from its I/O wait" "$TMP/j.fsynccg" job_flag io_bound
	chk "fsync loop: the tool io_bound from its I/O wait" "$TMP/j.fsynccg" flag io_bound present fsync3s.py
	chk "the cgroup's 1 GiB memory limit is the allocation" "$TMP/j.fsynccg" limits $((1 << 30))
	chk "peak far under the cgroup's limit: memory_overallocated" "$TMP/j.fsynccg" flag memory_overallocated present "of the 1.0 GiB"
else
	fail "could not make the job cgroups (memory limit, v2 cgroup)"
fi
# with a CPU quota of half a CPU wherever the cpu controller is (a v1
# hierarchy of its own, or shared with cpuacct, or v2's cpu.max)
if job_cgroups near $((128 << 20)) &&
	{ cpu_quota_cgroup "tracer-job-near-$$" 50000 100000; ok=$?; JOB_CGS="$JOB_CGS $CPU_CG"; [ "$ok" = 0 ]; }; then
	in_cgroups "$CG_PROCS $CPU_CG/cgroup.procs" -- "$BUILD/tracer" -o socket="$TRACERD_SOCK" run \
		--job-file "$TMP/j.near" --name near-limit -- "$H/touchmem" 118 2500
	chk "118 MiB in a 128 MiB cgroup: memory_near_limit" "$TMP/j.near" flag memory_near_limit
	chk "the CPU quota of 0.5 CPUs ($CPU_CG_LAYOUT) is the allocation: 1 CPU" "$TMP/j.near" cpu_limit 0.5 1
else
	fail "could not make the job cgroups with a 128 MiB limit and a CPU quota"
fi

echo "== stalled, live"
# asleep 8 s: stalled after the 3 s threshold, seen in tracer status (a
# 10 s deadline) while it sleeps on; its summary's flag needs a stall of
# 3 s (stalled_max_ns).  The usual runs below take about 4 s meanwhile,
# and its end is waited for (its wall is not checked).
tr_cli run --job-file "$TMP/j.stall" --name stall-test -- sleep 8 &
spid=$!
stalled_in_status() {
	tr_cli status --json | python3 -c '
import json, sys
uid = open(sys.argv[1]).read().strip()
st = json.load(sys.stdin)
sys.exit(0 if any(j["job"] == uid and j.get("stalled") for j in st["jobs"]["open_jobs"]) else 1)' "$TMP/j.stall"
}
wait_until 10 "tracer run to register" test -s "$TMP/j.stall" &&
	check "a sleeping job is stalled in tracer status while it runs (threshold 3 s)" poll_until 10 stalled_in_status
check "stalled logged at once" poll_until 5 grep -q "stalled: no CPU and no I/O" "$TRACERD_LOG"

# while the stalled job sleeps on (another task name: not in this history)
echo "== slower than usual, right-sizing over the task name's runs"
# sleeps: their wall time does not depend on the load of the machine.
# The five usual runs side by side, all ended before the sixth starts.
upids=()
for i in 1 2 3 4 5; do
	trun "$TMP/j.usual$i" --name usual-task -- sleep 1.2 &
	upids+=($!)
done
for p in "${upids[@]}"; do wait "$p" || fail "usual run (pid $p) failed"; done
for i in 1 2 3 4 5; do
	wait_until 10 "the summary of usual run $i" summary_of_job "$TMP/j.usual$i"
done
trun "$TMP/j.usual6" --name usual-task -- sleep 2.4
for i in 1 2 3 4 5; do
	chk "run $i of 5 like it: no slower_than_usual" "$TMP/j.usual$i" flag slower_than_usual absent
done
chk "the sixth, twice as slow: slower_than_usual" "$TMP/j.usual6" flag slower_than_usual present
chk "the sixth's recommendation covers the 6 runs" "$TMP/j.usual6" rec_runs 6

echo "== stalled, its summary"
wait "$spid"
wait_until 10 "the summary of the stalled job" summary_of_job "$TMP/j.stall"
chk "stalled in its summary" "$TMP/j.stall" flag stalled


echo "== history is per user: another user's runs of a task name move nothing"
make_test_users "$UGRP" "$UB"
UTRACER=$(user_copy "$BUILD/tracer") || exit 1
FAIR=fair-task-$$
# B's fast runs of the name; then root's run of it, much slower than
# B's but the first of root's own: neither flagged nor sized on B's runs
for i in 1 2 3 4 5; do
	setpriv --reuid="$UB" --regid="$UB" --init-groups -- "$UTRACER" -o socket="$TRACERD_SOCK" \
		run --job-file "$TMP/$UB/j.fair$i" --name "$FAIR" -- sleep 0.4
done
trun "$TMP/j.faira" --name "$FAIR" -- sleep 1.6
chk "B's 5 fast runs of the name: A's slow run not slower_than_usual" "$TMP/j.faira" flag slower_than_usual absent
chk "A's recommendation counts only A's run, not B's 5" "$TMP/j.faira" rec_runs 1
# B's own history still counts for B: a slow run of B is flagged
setpriv --reuid="$UB" --regid="$UB" --init-groups -- "$UTRACER" -o socket="$TRACERD_SOCK" \
	run --job-file "$TMP/$UB/j.fair6" --name "$FAIR" -- sleep 1.6
chk "B's slow run after B's 5 fast ones: slower_than_usual" "$TMP/$UB/j.fair6" flag slower_than_usual present
chk "B's recommendation covers B's 6 runs, not A's" "$TMP/$UB/j.fair6" rec_runs 6

check "every summary valid against docs/summary.schema.json" python3 "$TOP/tests/validate_summary.py" --min 22 "$TRACERD_FILE"

finish
