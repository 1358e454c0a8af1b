# checks.sh - the checks of the Slurm suite, sourced by run.sh (which
# provides pass/fail/expect and wait_until (tests/lib.sh), the cluster,
# tracerd, $T, $NDJSON, $JSUM, $SOCK).

# Slurm job id of the (recent) job named NAME.
jobid_by_name() {
	squeue -h -t all -n "$1" -o %A | head -n 1
}

# need_id DESC ID: a job id the test could not learn fails the check (and
# is never used as a filter that matches nothing).
need_id() {
	case $2 in
	[0-9]*) return 0 ;;
	esac
	fail "$1: no Slurm job id (got '$2')"
	return 1
}

# wait_sum N SECS FILTER...: N summaries match within SECS, else a FAIL.
# The bound is for "does not hang"; how soon summaries come is measured
# by make bench.
wait_sum() {
	n=$1 secs=$2
	shift 2
	wait_until "$secs" "$n summaries matching $*" $JSUM "$NDJSON" has "$n" "$@"
}

# no_open_job FILTER...: tracerd has no open job matching (it answers).
no_open_job() {
	c=$("$BUILD/tracer" -o socket="$SOCK" status --json | $JSUM - open "$@") && [ "$c" = 0 ]
}

# settled FILTER...: every job of FILTER is closed in tracerd, so every
# summary it will ever write for them is in the file: counts are final.
settled() {
	wait_until 10 "tracerd to close every job matching $*" no_open_job "$@"
}

# get PATH FILTER...: a field of the one summary matching FILTER (jsum.py
# get; PATH @tools is jsum.py tools, @tool/NAME/FIELD jsum.py tool).  One
# python run writes every field of it (jsum.py fields) to $T/jsum.fields
# for the gets that follow with the same FILTER while the summary file is
# the same (gets run in $(...), so a file, not a variable): a python
# start per field was most of this suite's time.  A field not there
# (absent, or with a newline) is asked of jsum.py itself.
get() {
	local path=$1 key k v cache=$T/jsum.fields
	shift
	key="$*|$(stat -c %s.%Y "$NDJSON" 2>/dev/null)"
	{ IFS= read -r k <"$cache"; } 2>/dev/null
	if [ "${k:-}" != "$key" ]; then
		if ! { printf '%s\n' "$key" && $JSUM "$NDJSON" fields "$@"; } >"$cache" 2>/dev/null; then
			rm -f "$cache"
		fi
	fi
	if [ -f "$cache" ]; then
		{
			IFS= read -r k
			while IFS=$'\t' read -r k v; do
				[ "$k" = "$path" ] && { printf '%s\n' "$v"; return 0; }
			done
		} <"$cache"
	fi
	case $path in
	@tools) $JSUM "$NDJSON" tools "$@" ;;
	@tool/*/*)
		k=${path#@tool/}
		$JSUM "$NDJSON" tool "${k%/*}" "${k##*/}" "$@" ;;
	*) $JSUM "$NDJSON" get "$path" "$@" ;;
	esac
}

# expect_tools DESC WANTED_NAMES FILTER...: each name is among the tools.
expect_tools() {
	desc=$1 wanted=$2
	shift 2
	if ! have=" $(get @tools "$@" 2>&1) "; then
		fail "$desc: no single summary matching $*:$have"
		return
	fi
	missing=""
	for t in $wanted; do
		case $have in *" $t "*) ;; *) missing="$missing $t" ;; esac
	done
	if [ -z "$missing" ]; then
		pass "$desc"
	else
		fail "$desc: missing$missing (tools:$have)"
	fi
}

# expect_no_tools DESC NAMES FILTER...: none of the names is a tool.
expect_no_tools() {
	desc=$1 unwanted=$2
	shift 2
	# no summary at all would hold none of them: that is not a pass
	if ! have=" $(get @tools "$@" 2>&1) "; then
		fail "$desc: no single summary matching $*:$have"
		return
	fi
	found=""
	for t in $unwanted; do
		case $have in *" $t "*) found="$found $t" ;; esac
	done
	if [ -z "$found" ]; then
		pass "$desc"
	else
		fail "$desc: found$found (tools:$have)"
	fi
}

PIPELINE='seq 1 50000 | gzip -c | gzip -dc | sort -rn | tail -n 1 >/dev/null
for i in 1 2 3 4 5; do /bin/true; done
/bin/echo ok'

check_pipeline() {
	out=$(srun -n2 -J tpipe sh -c "$PIPELINE" 2>"$T/tpipe.err")
	rc=$?
	expect "srun -n2 pipeline: exit status" "$rc" 0
	expect "srun -n2 pipeline: output" "$out" "$(printf 'ok\nok')"
	j=$(jobid_by_name tpipe)
	need_id "srun -n2 pipeline" "$j" || return
	wait_sum 1 10 job_id="$j" step_id=0 || return
	settled job_id="$j"
	f=(job_id="$j" step_id=0)
	expect "srun -n2 pipeline: one summary for the step" \
		"$($JSUM "$NDJSON" count job_id="$j")" 1
	expect "srun -n2 pipeline: scheduler" "$(get identity.scheduler "${f[@]}")" slurm
	expect "srun -n2 pipeline: cluster" "$(get identity.cluster "${f[@]}")" "$CLUSTER_NAME"
	expect "srun -n2 pipeline: step id" "$(get identity.step_id "${f[@]}")" 0
	expect "srun -n2 pipeline: job name" "$(get identity.task_name "${f[@]}")" tpipe
	expect "srun -n2 pipeline: user" "$(get identity.user "${f[@]}")" root
	expect "srun -n2 pipeline: uid" "$(get identity.uid "${f[@]}")" 0
	expect "srun -n2 pipeline: partition" "$(get identity.queue "${f[@]}")" "$CLUSTER_PARTITION"
	expect "srun -n2 pipeline: node count" "$(get identity.node_count "${f[@]}")" 1
	expect "srun -n2 pipeline: run id (the job is its own run)" \
		"$(get identity.run_id "${f[@]}")" "slurm-$j"
	expect "srun -n2 pipeline: allocated CPUs" "$(get identity.allocation.cpus "${f[@]}")" 2
	expect_match "srun -n2 pipeline: allocated cores as a cpuset list" \
		"$(get identity.allocation.cpuset "${f[@]}")" '^[0-9]+([-,][0-9]+)*$'
	expect "srun -n2 pipeline: allocated memory (2 CPUs x DefMemPerCPU=100 MB)" \
		"$(get identity.allocation.mem_bytes "${f[@]}")" $((200 * 1048576))
	expect "srun -n2 pipeline: CPU efficiency against the allocation" \
		"$(get cpu_efficiency_basis "${f[@]}")" allocation
	expect "srun -n2 pipeline: exit code" "$(get exit.code "${f[@]}")" 0
	expect_tools "srun -n2 pipeline: every tool, including 1 ms ones" \
		"seq gzip sort tail true echo" "${f[@]}"
	expect "srun -n2 pipeline: /bin/true ran 10 times (5 per task)" \
		"$(get @tool/true/processes "${f[@]}")" 10
	expect "srun -n2 pipeline: gzip ran 4 times" \
		"$(get @tool/gzip/processes "${f[@]}")" 4
	show=$("$BUILD/tracer" -o file="$NDJSON" show --tools "$j.0" 2>&1)
	expect_match "srun -n2 pipeline: tracer show $j.0 lists its tools" "$show" 'gzip'
	total=$(get processes.total "${f[@]}")
	if [ "${total:-0}" -ge 22 ] 2>/dev/null; then
		pass "srun -n2 pipeline: $total processes recorded (>= 22)"
	else
		fail "srun -n2 pipeline: $total processes recorded, want >= 22"
	fi
}

check_batch() {
	seq 1 200000 >"$T/data.txt"
	cat >"$T/batch.sh" <<EOF
#!/bin/sh
/bin/date >/dev/null
srun -n1 /usr/bin/sort -n $T/data.txt -o /dev/null
srun -n2 /usr/bin/md5sum $T/data.txt >/dev/null
echo batch done
EOF
	j=$(cluster_sbatch_wait -n2 -J tbatch -o "$T/tbatch.out" "$T/batch.sh")
	rc=$?
	expect "sbatch with two srun steps: exit status" "$rc" 0
	# the job's output, less Slurm's own note that step 1 waited for step
	# 0's CPUs (a busy slurmctld had not taken step 0's end in yet: "step
	# creation temporarily disabled, retrying", then "Step created")
	expect "sbatch with two srun steps: output" \
		"$(grep -v -e '^srun: Job [0-9]* step creation temporarily disabled, retrying' \
			-e '^srun: Step created for job [0-9]*$' "$T/tbatch.out")" "batch done"
	need_id "sbatch" "$j" || return
	wait_sum 3 10 job_id="$j" || return
	settled job_id="$j"
	expect "sbatch: steps summarised" \
		"$($JSUM "$NDJSON" values identity.step_id job_id="$j")" "0 1 batch"
	expect_tools "sbatch: batch step has the script's own tools" "date srun" \
		job_id="$j" step_id=batch
	expect_no_tools "sbatch: batch step does not hold the steps' tools" \
		"sort md5sum" job_id="$j" step_id=batch
	expect_tools "sbatch: step 0 has sort" sort job_id="$j" step_id=0
	expect_no_tools "sbatch: step 0 does not have md5sum" md5sum job_id="$j" step_id=0
	expect "sbatch: step 1 has md5sum twice (2 tasks)" \
		"$(get @tool/md5sum/processes job_id="$j" step_id=1)" 2
	expect_no_tools "sbatch: step 1 does not have sort" sort job_id="$j" step_id=1
	expect "sbatch: step 1 allocation" \
		"$(get identity.allocation.cpus job_id="$j" step_id=1)" 2
	expect "sbatch: job name on every step" \
		"$($JSUM "$NDJSON" values identity.task_name job_id="$j")" "tbatch tbatch tbatch"
}

check_array() {
	a=$(cluster_sbatch_wait --array=1-3 -J tarray -o /dev/null --wrap /bin/true)
	rc=$?
	expect "job array of 3: exit status" "$rc" 0
	need_id "job array" "$a" || return
	wait_sum 3 15 array_job_id="$a" || return
	settled array_job_id="$a"
	expect "job array: three summaries carry the array job id" \
		"$($JSUM "$NDJSON" count array_job_id="$a")" 3
	expect "job array: task ids" \
		"$($JSUM "$NDJSON" values identity.array_index array_job_id="$a")" "1 2 3"
	expect "job array: batch steps" \
		"$($JSUM "$NDJSON" values identity.step_id array_job_id="$a")" "batch batch batch"
	expect "job array: one run for the whole array" \
		"$($JSUM "$NDJSON" values identity.run_id array_job_id="$a")" \
		"slurm-$a slurm-$a slurm-$a"
	ids=$($JSUM "$NDJSON" values identity.job_id array_job_id="$a")
	expect "job array: each task has its own job id" \
		"$(echo "$ids" | tr ' ' '\n' | sort -u | wc -l)" 3
}

check_runs() {
	local p1 p2 p3
	# side by side: three jobs, one wait
	cluster_sbatch_wait --tracer-run=myrun -J trun1 -o /dev/null \
		--wrap 'srun -n1 /bin/true' >"$T/trun1.id" &
	p1=$!
	cluster_sbatch_wait --tracer-run=myrun --tracer-pipeline=mypipe \
		-J trun2 -o /dev/null --wrap /bin/true >"$T/trun2.id" &
	p2=$!
	TRACER_RUN_ID=envrun-$$ TRACER_RUN_NAME=nightly TRACER_PIPELINE=envpipe \
		cluster_sbatch_wait -J trun3 -o /dev/null --wrap /bin/true >"$T/trun3.id" &
	p3=$!
	wait "$p1" "$p2" "$p3"
	r1=$(cat "$T/trun1.id") r2=$(cat "$T/trun2.id") r3=$(cat "$T/trun3.id")
	TRACER_RUN_ID=envrun-$$ srun -J trun4 /bin/true
	r4=$(jobid_by_name trun4)
	salloc --tracer-run=sallocrun -J trun5 srun -n1 /bin/true 2>/dev/null
	r5=$(jobid_by_name trun5)
	for r in "$r1" "$r2" "$r3" "$r4" "$r5"; do
		need_id "runs" "$r" || return
	done
	wait_sum 2 10 job_id="$r1"
	for r in "$r2" "$r3" "$r4" "$r5"; do
		wait_sum 1 10 job_id="$r"
	done
	for r in "$r1" "$r2" "$r3" "$r4" "$r5"; do
		settled job_id="$r"
	done
	expect "--tracer-run=myrun on 2 jobs: their 3 steps in run myrun" \
		"$($JSUM "$NDJSON" values identity.job_id run_id=myrun)" \
		"$(printf '%s\n' "$r1" "$r1" "$r2" | sort | tr '\n' ' ' | sed 's/ $//')"
	expect "--tracer-run: the option reaches srun steps inside sbatch" \
		"$(get identity.run_id job_id="$r1" step_id=0)" myrun
	expect "--tracer-run: run name" "$(get identity.run_name job_id="$r2" step_id=batch)" myrun
	expect "--tracer-pipeline" "$(get identity.pipeline job_id="$r2" step_id=batch)" mypipe
	expect "TRACER_RUN_ID from the submitting shell on 2 jobs: one run" \
		"$($JSUM "$NDJSON" values identity.job_id run_id=envrun-$$)" \
		"$(printf '%s\n' "$r3" "$r4" | sort | tr '\n' ' ' | sed 's/ $//')"
	expect "TRACER_RUN_NAME" "$(get identity.run_name job_id="$r3")" nightly
	expect "TRACER_PIPELINE" "$(get identity.pipeline job_id="$r3")" envpipe
	expect "salloc --tracer-run: the run reaches srun inside the allocation" \
		"$(get identity.run_id job_id="$r5" step_id=0)" sallocrun
}

check_exit() {
	srun -J texit sh -c 'exit 3' 2>/dev/null
	rc=$?
	expect "job exiting 3: srun exit status" "$rc" 3
	j=$(jobid_by_name texit)
	need_id "job exiting 3" "$j" || return
	wait_sum 1 10 job_id="$j" || return
	expect "job exiting 3: exit code in the summary" "$(get exit.code job_id="$j")" 3
	expect "job exiting 3: no signal" "$(get exit.signal job_id="$j")" null
	# Two tasks, one fails: the step reports the failing task.
	srun -n2 -J texit2 sh -c 'exit $((SLURM_PROCID * 3))' 2>/dev/null
	rc=$?
	expect "srun -n2, task 1 exits 3: srun exit status" "$rc" 3
	j=$(jobid_by_name texit2)
	need_id "srun -n2, task 1 exits 3" "$j" || return
	wait_sum 1 10 job_id="$j" || return
	expect "srun -n2, task 1 exits 3: the step's exit code is the failing task's" \
		"$(get exit.code job_id="$j")" 3
}

# job_execs JOB NAME: a process of Slurm job JOB runs the executable NAME
job_execs() {
	for p in $(pgrep -x "$2"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$1" && return 0
	done
	return 1
}

check_cancel() {
	# sleep 300: cancelled long before; the test waits for it to run
	j=$(sbatch --parsable -J tcancel -o /dev/null --wrap 'exec sleep 300')
	need_id "scancel" "$j" || return
	# registered with tracerd (the task registers before it execs) and
	# running sleep: the signal then lands on the recorded task itself
	wait_until 30 "job $j to run sleep" job_execs "$j" sleep || return
	scancel "$j"
	wait_sum 1 20 job_id="$j" || return
	expect_match "scancel: terminating signal in the summary (SIGTERM or SIGKILL)" \
		"$(get exit.signal job_id="$j")" '^(15|9)$'
	expect "scancel: no exit code" "$(get exit.code job_id="$j")" null
}

check_off() {
	out=$(srun --tracer=off -J toff sh -c 'echo fine')
	rc=$?
	expect "--tracer=off on srun: job fine" "$rc:$out" "0:fine"
	o1=$(jobid_by_name toff)
	o2=$(cluster_sbatch_wait --tracer=off -J toff2 -o "$T/toff2.out" \
		--wrap 'srun -n1 /bin/echo fine2')
	rc=$?
	expect "--tracer=off on sbatch: job fine" "$rc:$(cat "$T/toff2.out")" "0:fine2"
	need_id "--tracer=off on srun" "$o1" || return
	need_id "--tracer=off on sbatch" "$o2" || return
	# A traced job alike, run the same way: it is recorded, so "no
	# summary" below is the option's doing, not a plugin that records nothing.
	srun -J tsentinel /bin/true
	s=$(jobid_by_name tsentinel)
	need_id "--tracer=off: sentinel" "$s" && wait_sum 1 10 job_id="$s"
	# No open job for them in tracerd: no summary of theirs can come later.
	check "--tracer=off: tracerd has no open job for $o1 or $o2" \
		eval 'no_open_job job_id="$o1" && no_open_job job_id="$o2"'
	expect "--tracer=off on srun: no summary" "$($JSUM "$NDJSON" count job_id="$o1")" 0
	expect "--tracer=off on sbatch: no summary for the batch or its steps" \
		"$($JSUM "$NDJSON" count job_id="$o2")" 0
}

check_bad_args() {
	cluster_set_plugstack "optional $PLUGIN socket=$SOCK timeout_ms=banana frob=1"
	out=$(srun -J tbadarg sh -c 'echo fine' 2>"$T/tbadarg.err")
	rc=$?
	cluster_set_plugstack "$PLUGSTACK_LINE"
	expect "bad plugstack.conf arguments: job fine" "$rc:$out" "0:fine"
	expect "bad plugstack.conf arguments: nothing on the user's stderr" \
		"$(cat "$T/tbadarg.err")" ""
	j=$(jobid_by_name tbadarg)
	need_id "bad plugstack.conf arguments" "$j" || return
	wait_sum 1 10 job_id="$j" && settled job_id="$j"
	expect "bad plugstack.conf arguments: defaults kept, job traced" \
		"$($JSUM "$NDJSON" count job_id="$j")" 1
	n=$(grep -F "[$j.0]" "$CLUSTER_DIR/log/slurmd.log" | grep -c "spank_tracer: plugstack.conf:.*frob=1")
	expect "bad plugstack.conf arguments: one error line in the step's log" "$n" 1
}

# The task registers as root, then becomes the user: check with nobody.
check_other_user() {
	if ! id nobody >/dev/null 2>&1; then
		fail "other user: no 'nobody' account"
		return
	fi
	out=$(cd / && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" \
		srun -J tuser id -un 2>"$T/tuser.err")
	rc=$?
	expect "job of user nobody: runs as nobody" "$rc:$out" "0:nobody"
	j=$(jobid_by_name tuser)
	need_id "job of user nobody" "$j" || return
	wait_sum 1 10 job_id="$j" || return
	expect "job of user nobody: user" "$(get identity.user job_id="$j")" nobody
	expect "job of user nobody: uid" "$(get identity.uid job_id="$j")" "$(id -u nobody)"
	expect_tools "job of user nobody: its tool" id job_id="$j"
}


# Bound on one srun in check_no_daemon: "does not hang".  A step takes
# tens of ms, the plugin's timeout is 200 ms per call; what each case
# adds to a job's start is measured by make bench (bench/slurm_latency.sh).
SRUN_HANG_MS=10000

# tracerd stopped, a stale socket, a hung tracerd: same output, same exit
# status as without the plugin, and one log line saying why.
check_no_daemon() {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
		"$T/stale.sock"
	python3 "$HERE/hang_server.py" "$T/hung.sock" "$T/hung.count" &
	HANG_PID=$(proc_tag $!)
	wait_until 60 "the hung tracerd stand-in to listen on $T/hung.sock" test -S "$T/hung.sock"
	for cfg in none stopped stale hung; do
		plugstack_for $cfg
		t0=$(date +%s%N)
		srun -J "tdown-$cfg" sh -c 'echo out; echo err >&2; exit 5' \
			>"$T/down.$cfg.out" 2>"$T/down.$cfg.err"
		echo $? >"$T/down.$cfg.rc"
		echo $((($(date +%s%N) - t0) / 1000000)) >"$T/down.$cfg.ms"
		cluster_sbatch_wait -J "tdownb-$cfg" -o "$T/downb.$cfg.out" \
			--wrap 'echo out; srun -n1 /bin/echo step; exit 4' >/dev/null 2>&1
		echo $? >"$T/downb.$cfg.rc"
	done
	plugstack_for none
	# the baseline itself ran: equal outputs of jobs that did nothing prove nothing
	expect "baseline without the plugin: srun exit status" "$(cat "$T/down.none.rc")" 5
	expect "baseline without the plugin: srun stdout" "$(cat "$T/down.none.out")" out
	expect_match "baseline without the plugin: srun stderr has the task's line" \
		"$(cat "$T/down.none.err")" '^err$'
	expect "baseline without the plugin: sbatch exit status" "$(cat "$T/downb.none.rc")" 4
	expect "baseline without the plugin: sbatch output" "$(cat "$T/downb.none.out")" \
		"$(printf 'out\nstep')"
	for cfg in stopped stale hung; do
		what="tracerd $cfg"
		expect "$what: srun exit status as without the plugin" "$(cat "$T/down.$cfg.rc")" 5
		ms=$(cat "$T/down.$cfg.ms")
		if [ "$ms" -lt "$SRUN_HANG_MS" ]; then
			pass "$what: srun does not hang ($ms ms < $SRUN_HANG_MS)"
		else
			fail "$what: srun took $ms ms (bound $SRUN_HANG_MS)"
		fi
		# srun's own "task exited" line races with the task's stderr.
		if cmp -s "$T/down.none.out" "$T/down.$cfg.out" &&
			[ "$(sort "$T/down.none.err")" = "$(sort "$T/down.$cfg.err")" ]; then
			pass "$what: srun stdout and stderr as without the plugin"
		else
			fail "$what: srun output differs from the run without the plugin (see $T/down.$cfg.*)"
		fi
		expect "$what: sbatch exit status as without the plugin" "$(cat "$T/downb.$cfg.rc")" 4
		if cmp -s "$T/downb.none.out" "$T/downb.$cfg.out"; then
			pass "$what: sbatch output as without the plugin"
		else
			fail "$what: sbatch output differs from the run without the plugin (see $T/downb.$cfg.out)"
		fi
		j=$(jobid_by_name "tdown-$cfg")
		n=$(grep -F "[$j.0]" "$CLUSTER_DIR/log/slurmd.log" |
			grep -c "spank_tracer: job $j step 0 task 0 not traced")
		expect "$what: one log line in slurmd's log" "$n" 1
	done
	expect_match "tracerd hung: the plugin did connect (and timed out)" \
		"$(cat "$T/hung.count" 2>/dev/null)" '^[1-9][0-9]*$'
}

# A step allocated 2 CPUs running one thread (pinned to the last CPU of its
# mask, so that it does not wander): idle_allocation names the other CPU;
# the job's state word beside.  tracerd runs with advice_min_runtime_s = 1.
check_idle_allocation() {
	if [ "$CLUSTER_CPUS" -lt 2 ]; then
		fail "idle_allocation: the test node has $CLUSTER_CPUS CPU, 2 needed"
		return
	fi
	srun -n1 -c2 -J tidle sh -c \
		'last=$(taskset -cp $$ | sed "s/.*: //; s/.*[,-]//"); exec taskset -c "$last" '"$BUILD/tests/helpers/spin"' 3000'
	rc=$?
	expect "2 CPUs, one thread: srun exit status" "$rc" 0
	j=$(jobid_by_name tidle)
	need_id "2 CPUs, one thread" "$j" || return
	wait_sum 1 10 job_id="$j" || return
	expect "2 CPUs, one thread: allocation" "$(get identity.allocation.cpus job_id="$j")" 2
	idle=$(get allocation_use.idle_cpus job_id="$j")
	expect_match "2 CPUs, one thread: one CPU idle" "$idle" '^[0-9]+$'
	expect_match "2 CPUs, one thread: idle_allocation names the idle CPU" \
		"$($JSUM "$NDJSON" flag idle_allocation job_id="$j")" "^CPUs $idle of "
	expect "2 CPUs, one thread: state" "$(get state job_id="$j")" COMPLETED
}

# The job's time limit (asked of slurmctld by tracerd, off its loop): a
# --time=01:00:00 job that runs seconds carries it and time_overrequested;
# a --time=1 job still running at its limit is stopped by Slurm (slurmctld
# checks limits every 30 s: within 60-90 s, then KillWait=5) and its state
# is TIMEOUT.  Both run at once, one CPU each.  No prices: no cost.
# time_limit_submit submits them, early: the --time=1 job's minute or more
# then passes while the checks that need at most one CPU run (run.sh);
# check_time_limit, last, waits for their summaries.
time_limit_submit() {
	TL_TIMEOUT_JOB=$(sbatch --parsable --time=1 -J ttimeout -o /dev/null --wrap 'exec sleep 300')
	TL_OK_JOB=$(sbatch --parsable --time=01:00:00 -J tlimit -o /dev/null --wrap 'sleep 3')
}
check_time_limit() {
	local to=${TL_TIMEOUT_JOB:-} ok=${TL_OK_JOB:-}
	need_id "--time=1" "$to" || return
	need_id "--time=01:00:00" "$ok" || return
	if wait_sum 1 60 job_id="$ok"; then
		expect "--time=01:00:00: time limit in the summary" \
			"$(get identity.allocation.time_limit_s job_id="$ok")" 3600
		expect_match "--time=01:00:00, 3 s: time_overrequested" \
			"$($JSUM "$NDJSON" flag time_overrequested job_id="$ok")" "of the 3600 s requested"
		expect "--time=01:00:00: COMPLETED" "$(get state job_id="$ok")" COMPLETED
		expect "no prices configured: no cost object" "$(get cost job_id="$ok")" null
	fi
	wait_sum 1 150 job_id="$to" || return
	expect "--time=1: time limit in the summary" \
		"$(get identity.allocation.time_limit_s job_id="$to")" 60
	expect "--time=1, still running at its limit: TIMEOUT" "$(get state job_id="$to")" TIMEOUT
	expect_match "--time=1: stopped by a signal" "$(get exit.signal job_id="$to")" '^(15|9)$'
}
