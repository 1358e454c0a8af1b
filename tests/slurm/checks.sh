# checks.sh - the checks of the Slurm suite, sourced by run.sh (which
# provides pass/fail/expect, the cluster, tracerd, $T, $NDJSON, $JSUM).

# Slurm job id of the (recent) job named NAME.
jobid_by_name() {
	squeue -h -t all -n "$1" -o %A | head -n 1
}

# sum N SECS FILTER...: wait for N summaries, fail the check if they miss.
wait_sum() {
	$JSUM "$NDJSON" wait "$@"
}

get() { $JSUM "$NDJSON" get "$@"; }

# expect_tools DESC WANTED_NAMES FILTER...: each name is among the tools.
expect_tools() {
	desc=$1 wanted=$2
	shift 2
	have=" $($JSUM "$NDJSON" tools "$@") "
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
	have=" $($JSUM "$NDJSON" tools "$@") "
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
	t_end=$(date +%s%N)
	expect "srun -n2 pipeline: exit status" "$rc" 0
	expect "srun -n2 pipeline: output" "$out" "$(printf 'ok\nok')"
	j=$(jobid_by_name tpipe)
	if ! wait_sum 1 10 job_id="$j" step_id=0; then
		fail "srun -n2 pipeline: no summary for job $j step 0 within 10 s"
		return
	fi
	ms=$((($(date +%s%N) - t_end) / 1000000))
	if [ "$ms" -lt 1000 ]; then
		pass "srun -n2 pipeline: summary written ${ms} ms after srun returned (< 1 s)"
	else
		fail "srun -n2 pipeline: summary written ${ms} ms after srun returned (>= 1 s)"
	fi
	sleep 0.5
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
		"$($JSUM "$NDJSON" tool true processes "${f[@]}")" 10
	expect "srun -n2 pipeline: gzip ran 4 times" \
		"$($JSUM "$NDJSON" tool gzip processes "${f[@]}")" 4
	show=$("$BUILD/tracer" -o file="$NDJSON" show "$j.0" 2>&1)
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
	j=$(sbatch --parsable --wait -n2 -J tbatch -o "$T/tbatch.out" "$T/batch.sh")
	rc=$?
	expect "sbatch with two srun steps: exit status" "$rc" 0
	expect "sbatch with two srun steps: output" "$(cat "$T/tbatch.out")" "batch done"
	if ! wait_sum 3 10 job_id="$j"; then
		fail "sbatch: want 3 summaries (batch, 0, 1) for job $j, got $($JSUM "$NDJSON" count job_id="$j")"
		return
	fi
	sleep 0.5
	expect "sbatch: steps summarised" \
		"$($JSUM "$NDJSON" values identity.step_id job_id="$j")" "0 1 batch"
	expect_tools "sbatch: batch step has the script's own tools" "date srun" \
		job_id="$j" step_id=batch
	expect_no_tools "sbatch: batch step does not hold the steps' tools" \
		"sort md5sum" job_id="$j" step_id=batch
	expect_tools "sbatch: step 0 has sort" sort job_id="$j" step_id=0
	expect_no_tools "sbatch: step 0 does not have md5sum" md5sum job_id="$j" step_id=0
	expect "sbatch: step 1 has md5sum twice (2 tasks)" \
		"$($JSUM "$NDJSON" tool md5sum processes job_id="$j" step_id=1)" 2
	expect_no_tools "sbatch: step 1 does not have sort" sort job_id="$j" step_id=1
	expect "sbatch: step 1 allocation" \
		"$(get identity.allocation.cpus job_id="$j" step_id=1)" 2
	expect "sbatch: job name on every step" \
		"$($JSUM "$NDJSON" values identity.task_name job_id="$j")" "tbatch tbatch tbatch"
}

check_array() {
	a=$(sbatch --parsable --wait --array=1-3 -J tarray -o /dev/null --wrap /bin/true)
	rc=$?
	expect "job array of 3: exit status" "$rc" 0
	if ! wait_sum 3 15 array_job_id="$a"; then
		fail "job array: want 3 summaries with array job id $a, got $($JSUM "$NDJSON" count array_job_id="$a")"
		return
	fi
	sleep 0.5
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
	r1=$(sbatch --parsable --wait --tracer-run=myrun -J trun1 -o /dev/null \
		--wrap 'srun -n1 /bin/true')
	r2=$(sbatch --parsable --wait --tracer-run=myrun --tracer-pipeline=mypipe \
		-J trun2 -o /dev/null --wrap /bin/true)
	r3=$(TRACER_RUN_ID=envrun-$$ TRACER_RUN_NAME=nightly TRACER_PIPELINE=envpipe \
		sbatch --parsable --wait -J trun3 -o /dev/null --wrap /bin/true)
	TRACER_RUN_ID=envrun-$$ srun -J trun4 /bin/true
	r4=$(jobid_by_name trun4)
	salloc --tracer-run=sallocrun -J trun5 srun -n1 /bin/true 2>/dev/null
	r5=$(jobid_by_name trun5)
	wait_sum 2 10 job_id="$r1"
	wait_sum 1 10 job_id="$r2"
	wait_sum 1 10 job_id="$r3"
	wait_sum 1 10 job_id="$r4"
	wait_sum 1 10 job_id="$r5"
	sleep 0.5
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
	if ! wait_sum 1 10 job_id="$j"; then
		fail "job exiting 3: no summary for job $j"
		return
	fi
	expect "job exiting 3: exit code in the summary" "$(get exit.code job_id="$j")" 3
	expect "job exiting 3: no signal" "$(get exit.signal job_id="$j")" null
	# Two tasks, one fails: the step reports the failing task.
	srun -n2 -J texit2 sh -c 'exit $((SLURM_PROCID * 3))' 2>/dev/null
	rc=$?
	expect "srun -n2, task 1 exits 3: srun exit status" "$rc" 3
	j=$(jobid_by_name texit2)
	if ! wait_sum 1 10 job_id="$j"; then
		fail "srun -n2, task 1 exits 3: no summary for job $j"
		return
	fi
	expect "srun -n2, task 1 exits 3: the step's exit code is the failing task's" \
		"$(get exit.code job_id="$j")" 3
}

check_cancel() {
	j=$(sbatch --parsable -J tcancel -o /dev/null --wrap 'exec sleep 300')
	state=""
	for _ in $(seq 100); do
		state=$(squeue -h -j "$j" -o %T)
		[ "$state" = RUNNING ] && break
		sleep 0.2
	done
	if [ "$state" != RUNNING ]; then
		fail "scancel: job $j never ran (state '$state')"
		return
	fi
	sleep 1
	scancel "$j"
	if ! wait_sum 1 20 job_id="$j"; then
		fail "scancel: no summary for job $j"
		return
	fi
	expect_match "scancel: terminating signal in the summary (SIGTERM or SIGKILL)" \
		"$(get exit.signal job_id="$j")" '^(15|9)$'
	expect "scancel: no exit code" "$(get exit.code job_id="$j")" null
}

check_off() {
	out=$(srun --tracer=off -J toff sh -c 'echo fine')
	rc=$?
	expect "--tracer=off on srun: job fine" "$rc:$out" "0:fine"
	o1=$(jobid_by_name toff)
	o2=$(sbatch --parsable --wait --tracer=off -J toff2 -o "$T/toff2.out" \
		--wrap 'srun -n1 /bin/echo fine2')
	rc=$?
	expect "--tracer=off on sbatch: job fine" "$rc:$(cat "$T/toff2.out")" "0:fine2"
	# A traced job after them: once its summary is in, theirs would be too.
	srun -J tsentinel /bin/true
	s=$(jobid_by_name tsentinel)
	wait_sum 1 10 job_id="$s" || fail "--tracer=off: sentinel job $s has no summary"
	sleep 0.5
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
	wait_sum 1 10 job_id="$j"
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
	if ! wait_sum 1 10 job_id="$j"; then
		fail "job of user nobody: no summary for job $j"
		return
	fi
	expect "job of user nobody: user" "$(get identity.user job_id="$j")" nobody
	expect "job of user nobody: uid" "$(get identity.uid job_id="$j")" "$(id -u nobody)"
	expect_tools "job of user nobody: its tool" id job_id="$j"
}

# plugstack.conf for each way tracerd can be absent.
plugstack_for() {
	case $1 in
	none) cluster_set_plugstack "# no plugin" ;;
	live | stopped) cluster_set_plugstack "$PLUGSTACK_LINE" ;;
	stale) cluster_set_plugstack "optional $PLUGIN socket=$T/stale.sock" ;;
	hung) cluster_set_plugstack "optional $PLUGIN socket=$T/hung.sock timeout_ms=200" ;;
	esac
}

# tracerd stopped, a stale socket, a hung tracerd: same output, same exit
# status as without the plugin, and one log line saying why.
check_no_daemon() {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
		"$T/stale.sock"
	python3 "$HERE/hang_server.py" "$T/hung.sock" "$T/hung.count" &
	HANG_PID=$(proc_tag $!)
	for _ in $(seq 50); do [ -S "$T/hung.sock" ] && break; sleep 0.1; done
	for cfg in none stopped stale hung; do
		plugstack_for $cfg
		srun -J "tdown-$cfg" sh -c 'echo out; echo err >&2; exit 5' \
			>"$T/down.$cfg.out" 2>"$T/down.$cfg.err"
		echo $? >"$T/down.$cfg.rc"
		sbatch --wait -J "tdownb-$cfg" -o "$T/downb.$cfg.out" \
			--wrap 'echo out; srun -n1 /bin/echo step; exit 4' >/dev/null 2>&1
		echo $? >"$T/downb.$cfg.rc"
	done
	plugstack_for none
	expect "baseline without the plugin: srun exit status" "$(cat "$T/down.none.rc")" 5
	expect "baseline without the plugin: sbatch exit status" "$(cat "$T/downb.none.rc")" 4
	for cfg in stopped stale hung; do
		what="tracerd $cfg"
		expect "$what: srun exit status as without the plugin" "$(cat "$T/down.$cfg.rc")" 5
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

# Until the previous job has left the node: a new job would wait for it.
wait_no_jobs() {
	for _ in $(seq 100); do
		[ -z "$(squeue -h -o %A)" ] && return 0
		sleep 0.05
	done
}

# One start-latency sample (ms): from just before srun to the task's first
# instruction.
latency_sample() {
	wait_no_jobs
	t0=$(date +%s%N)
	t1=$(srun -n1 -J tlat /bin/date +%s%N 2>/dev/null)
	echo $(((t1 - t0) / 1000000))
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

LAT_ROUNDS=7

# measure_latency PHASE CFG...: LAT_ROUNDS samples of no plugin and of each
# configuration, interleaved so that drift hits them alike, into
# $T/lat.PHASE.CFG; prints the medians.
measure_latency() {
	phase=$1
	shift
	for cfg in none "$@"; do : >"$T/lat.$phase.$cfg"; done
	for _ in $(seq "$LAT_ROUNDS"); do
		for cfg in none "$@"; do
			plugstack_for "$cfg"
			latency_sample >>"$T/lat.$phase.$cfg"
		done
	done
	plugstack_for live
	for cfg in none "$@"; do
		echo "latency: $cfg: median $(median "$T/lat.$phase.$cfg") ms (samples: $(tr '\n' ' ' <"$T/lat.$phase.$cfg"))"
	done
}

check_latency() {
	measure_latency down stopped stale hung
	base=$(median "$T/lat.down.none")
	for cfg in stopped stale hung; do
		m=$(median "$T/lat.down.$cfg")
		d=$((m - base))
		msg="start latency with tracerd $cfg: +$d ms over no plugin (median $m vs $base ms, limit +250)"
		if [ "$d" -le 250 ]; then
			pass "$msg"
		else
			fail "$msg"
		fi
	done
}
