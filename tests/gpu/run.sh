#!/bin/bash
# run.sh BUILD - GPUs per job and per tool against the NVML test double
# (tests/helpers/nvml_double.c, opened by tracerd through the same dlopen
# as the driver's library): per-process, per-tool and per-job GPU memory
# peak and time, from the driver's accounting and sampled, the GPUs used,
# energy, the flags and the request, `tracer status`, a hung NVML call, a
# node without the library.  The double answers from a script this suite
# writes, with the real pids of its processes.  Needs root (tracerd).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-gpu.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/gpu/check.py"
WORK="$TOP/tests/gpu/work.py"
DOUBLE=$BUILD/tests/helpers/libnvml_double.so
SCRIPT=$TMP/nvml.script
NVLOG=$TMP/nvml.log
JOBPIDS=()

cleanup() {
	# the jobs' stand-in GPU programs end with their go files
	touch "$TMP"/go.* 2>/dev/null
	for p in "${JOBPIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	stop_tracerd
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
[ -f "$DOUBLE" ] || { echo "FAIL: $DOUBLE missing (make all)"; exit 1; }
PY=$(command -v python3) || { echo "FAIL: python3 is not installed"; exit 1; }
# the interpreter itself, not a version manager's shim (one process, fast)
PY=$("$PY" -c 'import sys; print(sys.executable)')
command -v curl >/dev/null || { echo "FAIL: curl is not installed"; exit 1; }
export NVML_DOUBLE_SCRIPT=$SCRIPT NVML_DOUBLE_LOG=$NVLOG

H100="NVIDIA H100 80GB HBM3"
U0=GPU-00000000-1111-2222-3333-444444444444
U1=GPU-11111111-1111-2222-3333-444444444444
MEM80=85520809984 # 79.6 GiB, as an H100 80GB reports
# devices ACCT: the two GPUs' lines, accounting mode ACCT
devices() {
	echo "device 0 $U0 $MEM80 0 $1 $H100"
	echo "device 1 $U1 $MEM80 1 $1 $H100"
}
# script LINES...: the double's truth, replaced at once
script() { printf '%s\n' "$@" >"$SCRIPT.tmp" && mv "$SCRIPT.tmp" "$SCRIPT"; }
chk() { check "$1" "$PY" "$CHECK" "$TRACERD_FILE" "$2" "$3"; }
status_has() { tr_cli status | grep -q -- "$1"; }
gpu_status() { tr_cli status --json | "$PY" -c 'import json, sys
g = json.load(sys.stdin)["gpu"]; print(g.get(sys.argv[1], ""))' "$1"; }
samples_past() { [ "$(gpu_status samples)" -ge "$1" ]; }
# the points of the open job's GPU lane (one job with GPUs open at a time)
lane_points() { tr_cli status --json | "$PY" -c 'import json, sys
print(max([j.get("gpu_points", 0) for j in json.load(sys.stdin)["jobs"]["open_jobs"]] + [0]))'; }
lane_past() { [ "$(lane_points)" -ge "$1" ]; }
# an open job's processes alive, as tracerd counts them (-1: not open)
job_live() { tr_cli status --json | "$PY" -c 'import json, sys
print(next((j["live"] for j in json.load(sys.stdin)["jobs"]["open_jobs"] if j["job"] == sys.argv[1]), -1))' "$1"; }
live_is() { [ "$(job_live "$1")" = "$2" ]; }
calls() { grep -c "^$1" "$NVLOG" 2>/dev/null || true; }
calls_at_least() { [ "$(calls "$1")" -ge "$2" ]; }
# a free port for metrics_listen (another copy of this suite may run)
MPORT=$(free_port 18611 18699) || { echo "FAIL: no free port in 18611-18699 for metrics_listen"; exit 1; }
metrics() { curl -sf --max-time 5 "http://127.0.0.1:$MPORT/metrics"; }
metric_has() { metrics | grep -q -- "$1"; }

# a loaded machine may take longer than a registrant's default 200 ms to
# answer (the journal is fsync'ed first): jobs here must be recorded
trc() { tr_cli -o client_timeout_ms=5000 "$@"; }

# summary_in JOBFILE: its summary is in tracerd's file (a grep: no
# interpreter to start while the machine is loaded)
summary_in() {
	local uid
	uid=$(cat "$1" 2>/dev/null) && [ -n "$uid" ] && grep -qF "\"job\":\"$uid\"" "$TRACERD_FILE" 2>/dev/null
}

# start_job NAME TRACER_RUN_OPTIONS...: a job whose one process (work.py)
# writes its pid to $TMP/pid.NAME and runs until $TMP/go.NAME exists
start_job() {
	local name=$1
	shift
	trc run --job-file "$TMP/job.$name" --name "gpu-$name" "$@" -- \
		"$PY" "$WORK" "$TMP/pid.$name" "$TMP/go.$name" >/dev/null 2>&1 &
	JOBPIDS+=($!)
	wait_until 60 "job $name to register" test -s "$TMP/job.$name" &&
		wait_until 60 "job $name's process to start" test -s "$TMP/pid.$name"
}

echo "== accounting mode on: exact per-process figures at exit"
: >"$NVLOG"
script "$(devices 1)" "energy 0 1000000" "energy 1 5000000"
TRACERD_TEST_NVML_LIB=$DOUBLE start_tracerd gpu -o advice_min_runtime_s=0 -o flag_cpu_bound_share=0.3 -o flag_gpu_idle_share=0.01 \
	-o sample_interval_ms=200 -o metrics_listen=127.0.0.1:$MPORT || exit 1
check "tracer status: NVML and its two GPUs" status_has "^gpu:      NVML 999.0-double, 2 GPU(s)"
check "tracer status: GPU 0 with accounting on" status_has "^gpu 0     $H100, $U0, 79.6 GiB, accounting on"
check "tracer status: gpu_counting: accounting" status_has "^gpu_counting: accounting: exact"
if start_job acct --gpus 0,1; then
	pid=$(cat "$TMP/pid.acct")
	check "the job's start reads the energy counters" poll_until 10 calls_at_least nvmlDeviceGetTotalEnergyConsumption 2
	s0=$(gpu_status samples)
	# running on GPU 0: 4 GiB, 20% busy; the counters move on
	script "$(devices 1)" "energy 0 1750000" "energy 1 5250000" "proc 0 $pid 4294967296 20"
	check "the sampler sees the job's process" poll_until 10 samples_past $((s0 + 3))
	check "/metrics: the job's GPU 0 memory" poll_until 10 metric_has \
		"^tracer_job_gpu_memory_bytes{job_uid=\"$(cat "$TMP/job.acct")\",gpu=\"0\",uuid=\"$U0\"} 4294967296"
	check "/metrics: GPU 1 allocated to the job, not used" metric_has \
		"^tracer_job_gpu_allocated{job_uid=\"$(cat "$TMP/job.acct")\",gpu=\"1\",uuid=\"$U1\"} 1"
	# it exits: the driver's record (53% busy, 5 GiB at most, 7.114 s)
	script "$(devices 1)" "energy 0 1750000" "energy 1 5250000" "acct 0 $pid 20 5 5368709120 7114"
	touch "$TMP/go.acct"
	wait_until 60 "the summary of job acct" summary_in "$TMP/job.acct"
	J=$TMP/job.acct
	chk "gpu_counting: accounting" "$J" 's["gpu_counting"] == "accounting" and g["counting"] == "accounting"'
	chk "the driver was asked for the process's record" "$J" "True"
	check "accounting stats asked for pid $pid on GPU 0" grep -q "^nvmlDeviceGetAccountingStats 0 $pid$" "$NVLOG"
	chk "per process: pid, tool, GPU, 5 GiB peak, 7.114 s, 20%, exact" "$J" \
		"proc($pid)['tool'] == 'work.py' and proc($pid)['gpu'] == 0 and proc($pid)['uuid'] == '$U0' and proc($pid)['memory_peak_bytes'] == 5*GiB and proc($pid)['time_s'] == 7.114 and proc($pid)['utilization_pct'] == 20 and proc($pid)['memory_utilization_pct'] == 5 and proc($pid)['counting'] == 'accounting'"
	chk "per tool: work.py's GPU memory peak, time and busy time" "$J" \
		"tool('work.py')['gpu'] == {'processes': 1, 'memory_peak_bytes': 5*GiB, 'time_s': 7.114, 'busy_s': 1.4228, 'utilization_pct': 20}"
	chk "per job: GPU 0 used, allocated, its peak and busy time" "$J" \
		"dev(0)['allocated'] and dev(0)['used'] and dev(0)['processes'] == 1 and dev(0)['memory_peak_bytes'] == 5*GiB and dev(0)['busy_s'] == 1.4228 and dev(0)['uuid'] == '$U0' and dev(0)['name'] == '$H100' and g['memory_peak_bytes'] == 5*GiB"
	chk "per job: GPU 1 allocated and not used" "$J" \
		"dev(1)['allocated'] and not dev(1)['used'] and dev(1)['processes'] == 0"
	chk "energy: 750 J on GPU 0, 250 J on GPU 1, 1000 J in all" "$J" \
		"dev(0)['energy_j'] == 750 and dev(1)['energy_j'] == 250 and g['energy_j'] == 1000"
	chk "gpu_idle_allocation: GPU 1 with its evidence" "$J" \
		"flag('gpu_idle_allocation', gpu_index=1, processes=0, utilization_pct=0) and '$U1' in flag('gpu_idle_allocation', gpu_index=1)['message'] and not flag('gpu_idle_allocation', gpu_index=0)"
	chk "gpu_memory_overallocated: 5 GiB of 79.6 GiB, a MIG 1g.10gb slice" "$J" \
		"flag('gpu_memory_overallocated', gpu_index=0, memory_peak_bytes=5*GiB, mig_slices=1) and '1g.10gb' in flag('gpu_memory_overallocated')['message']"
	chk "gpu_underused: work.py busy 20% on the GPU, its CPU side bound" "$J" \
		"flag('gpu_underused') and flag('gpu_underused')['tool'] == 'work.py' and flag('gpu_underused')['evidence']['gpu_utilization_pct'] == 20"
	chk "the request: 1 GPU, in the four syntaxes" "$J" \
		"s['recommendation']['gpus'] == 1 and '--gres=gpu:1' in s['recommendation']['syntax']['slurm'] and 'accelerator = 1' in s['recommendation']['syntax']['nextflow'] and 'gpu=1' in s['recommendation']['syntax']['snakemake'] and '\"GPU\", \"value\": \"1\"' in s['recommendation']['syntax']['aws_batch']"
	chk "the allocation as given" "$J" "g['allocated'] == '0,1' and s['identity']['allocation']['gpus'] == '0,1'"
	check "tracer show: the GPU line" sh -c "'$BUILD/tracer' -o file='$TRACERD_FILE' -o socket='$TRACERD_SOCK' show --wide \$(cat '$J') | grep -q '^GPU      2 allocated, 1 used, 1 idle; memory peak 5.0 GiB, busy 1.423 s, energy 1.0 kJ (accounting)'"
fi

echo "== another process on the job's GPU: no energy"
if start_job shared --gpus 0; then
	pid=$(cat "$TMP/pid.shared")
	s0=$(gpu_status samples)
	script "$(devices 1)" "energy 0 1750000" "energy 1 5250000" "proc 0 $pid 1073741824 90" "proc 0 1 1073741824 5"
	p0=$(lane_points)
	check "the sampler sees both" poll_until 10 samples_past $((s0 + 3))
	# what the summary says of them is what the loop took from the
	# sampler (its latest, at its own ticks): the third point after p0
	# is from a sample begun after the script
	check "the job's GPU lane: a point of both" poll_until 10 lane_past $((p0 + 3))
	script "$(devices 1)" "energy 0 2750000" "energy 1 5250000"
	touch "$TMP/go.shared"
	wait_until 60 "the summary of job shared" summary_in "$TMP/job.shared"
	chk "GPU 0 shared with a process of no job: no energy_j" "$TMP/job.shared" \
		"dev(0)['shared'] and 'energy_j' not in dev(0) and 'energy_j' not in g"
	chk "the process's record from the samples when the driver has none" "$TMP/job.shared" \
		"proc($pid)['counting'] == 'sampled' and proc($pid)['memory_peak_bytes'] == GiB and proc($pid)['utilization_pct'] == 90"
fi
validate_summaries "summaries (accounting) valid against docs/summary.schema.json" --min 2 "$TRACERD_FILE"
stop_tracerd

echo "== accounting mode off: sampled"
: >"$NVLOG"
script "$(devices 0)" "energy 0 1000000" "energy 1 5000000"
TRACERD_TEST_NVML_LIB=$DOUBLE start_tracerd gpu2 -o advice_min_runtime_s=0 -o sample_interval_ms=200 || exit 1
check "tracer status: accounting off" status_has "^gpu 1     $H100, $U1, 79.6 GiB, accounting off"
check "tracer status: gpu_counting: sampled, and how to make it exact" \
	status_has "^gpu_counting: sampled: accounting mode is off.*every 200 ms.*nvidia-smi -am 1"
if start_job sampled --gpus 1; then
	pid=$(cat "$TMP/pid.sampled")
	s0=$(gpu_status samples)
	script "$(devices 0)" "energy 0 1000000" "energy 1 5000000" "proc 1 $pid 2147483648 60"
	p0=$(lane_points)
	check "the sampler sees the job's process" poll_until 10 samples_past $((s0 + 4))
	# the loop takes the sampler's latest: the first point after p0 may
	# predate the script and the second straddle it, the next two do not
	check "the job's GPU lane: 3 points since" poll_until 10 lane_past $((p0 + 4))
	script "$(devices 0)" "energy 0 1000000" "energy 1 5000000"
	touch "$TMP/go.sampled"
	wait_until 60 "the summary of job sampled" summary_in "$TMP/job.sampled"
	J=$TMP/job.sampled
	chk "gpu_counting: sampled" "$J" 's["gpu_counting"] == "sampled" and g["counting"] == "sampled"'
	chk "per process, sampled: 2 GiB peak, 60% busy, seen for some time" "$J" \
		"proc($pid)['counting'] == 'sampled' and proc($pid)['memory_peak_bytes'] == 2*GiB and proc($pid)['utilization_pct'] == 60 and proc($pid)['time_s'] > 0 and 'memory_utilization_pct' not in proc($pid)"
	chk "GPU 1 used, GPU 0 not the job's" "$J" \
		"dev(1)['used'] and dev(1)['allocated'] and [d['index'] for d in g['devices']] == [1]"
	chk "the GPU lane: utilisation and memory over time" "$J" \
		"g['timeseries']['points'] >= 3 and max(g['timeseries']['utilization_pct']) == 60 and max(g['timeseries']['memory_bytes']) == 2*GiB"
	check "no accounting record asked while accounting is off" not grep -q "^nvmlDeviceGetAccountingStats" "$NVLOG"
	if tr_cli show "$(cat "$J")" --html "$TMP/sampled.html" >/dev/null; then
		check "tracer show --html: the GPU lane, utilisation and memory over time" \
			grep -q 'id="chart-gpu-util"' "$TMP/sampled.html"
		check "tracer show --html: GPU 1 in the GPU table" grep -q "<td>$U1</td>" "$TMP/sampled.html"
	else
		fail "tracer show --html failed for a GPU job"
	fi
fi

echo "== a sample that still lists a process taken in after its exit"
# The loop takes the NVML thread's latest sample at its own ticks, so a
# sample begun while work.py ran may be taken in after tracerd saw it
# exit, its pid no job's any more: not a stranger on the GPU (which
# would mark it shared and lose the job's energy).  The double holds a
# sample in nvmlDeviceGetProcessUtilization, after it listed work.py,
# until tracerd has seen the exit, then holds the next sample at its
# start until the loop took in the first; the job's shell stays, reading
# a fifo.
mkfifo "$TMP/hold.stale"
trc run --job-file "$TMP/job.stale" --name gpu-stale --gpus 0 -- sh -c '"$1" "$2" "$3" "$4"; read x <"$5"' \
	sh "$PY" "$WORK" "$TMP/pid.stale" "$TMP/go.stale" "$TMP/hold.stale" >/dev/null 2>&1 &
JOBPIDS+=($!)
if wait_until 60 "job stale to register" test -s "$TMP/job.stale" &&
	wait_until 60 "job stale's process to start" test -s "$TMP/pid.stale"; then
	pid=$(cat "$TMP/pid.stale")
	job=$(cat "$TMP/job.stale")
	script "$(devices 0)" "energy 0 1000000" "energy 1 5000000" "proc 0 $pid 1073741824 40"
	p0=$(lane_points)
	check "the loop took in samples that list work.py" poll_until 10 lane_past $((p0 + 3))
	live0=$(job_live "$job")
	script "$(devices 0)" "energy 0 1000000" "energy 1 5000000" "proc 0 $pid 1073741824 40" \
		"hang nvmlDeviceGetProcessUtilization"
	check "a sample held after it listed work.py" \
		poll_until 10 grep -q "^hanging nvmlDeviceGetProcessUtilization" "$NVLOG"
	touch "$TMP/go.stale"
	check "tracerd saw work.py exit ($live0 processes alive before)" poll_until 10 live_is "$job" $((live0 - 1))
	# let the held sample go, and hold the next at its start, so that the
	# loop's next tick takes in the held one
	p1=$(lane_points)
	script "$(devices 0)" "energy 0 1500000" "energy 1 5000000" \
		"hang nvmlDeviceGetComputeRunningProcesses_v3 0"
	check "the held sample taken in after the exit" poll_until 10 lane_past $((p1 + 1))
	check "the next sample held at its start" \
		poll_until 10 grep -q "^hanging nvmlDeviceGetComputeRunningProcesses_v3 0" "$NVLOG"
	script "$(devices 0)" "energy 0 1500000" "energy 1 5000000"
	echo >"$TMP/hold.stale"
	wait_until 60 "the summary of job stale" summary_in "$TMP/job.stale"
	chk "GPU 0 not shared: the gone pid was the job's; its 500 J counted" "$TMP/job.stale" \
		"not dev(0).get('shared') and dev(0)['energy_j'] == 500"
fi
validate_summaries "summaries (sampled) valid against docs/summary.schema.json" "$TRACERD_FILE"
stop_tracerd

echo "== MIG: a slice is a device of its own"
M1=MIG-aaaaaaaa-1111-2222-3333-444444444444
M2=MIG-bbbbbbbb-1111-2222-3333-444444444444
A100="NVIDIA A100-SXM4-80GB"
mig_script() {
	script "device 0 $U0 $MEM80 0 1 $A100" "mig 0 1 0 $M1 10737418240" "mig 0 2 0 $M2 10737418240" "$@"
}
mig_script
TRACERD_TEST_NVML_LIB=$DOUBLE start_tracerd gpumig -o advice_min_runtime_s=0 -o sample_interval_ms=200 || exit 1
check "tracer status: the two MIG instances, accounting off" status_has "^gpu 0     $A100, $M2, 10.0 GiB, accounting off"
if start_job mig --gpus "$M1"; then
	pid=$(cat "$TMP/pid.mig")
	s0=$(gpu_status samples)
	mig_script "proc 100 $pid 3221225472 50"
	p0=$(lane_points)
	check "the sampler sees the job's process on the slice" poll_until 10 samples_past $((s0 + 3))
	check "the job's GPU lane: a point of it (the third since the script)" poll_until 10 lane_past $((p0 + 3))
	mig_script
	touch "$TMP/go.mig"
	wait_until 60 "the summary of job mig" summary_in "$TMP/job.mig"
	chk "the slice: its UUID, instance ids, allocated and used; the other not the job's" "$TMP/job.mig" \
		"mig('$M1')['mig'] == {'gpu_instance': 1, 'compute_instance': 0} and mig('$M1')['allocated'] and mig('$M1')['used'] and mig('$M1')['memory_peak_bytes'] == 3*GiB and len(g['devices']) == 1"
	chk "sampled on a MIG slice, 3 GiB of its 10 GiB not flagged as a MIG slice to take" "$TMP/job.mig" \
		"s['gpu_counting'] == 'sampled' and not flag('gpu_memory_overallocated', mig_slices=1)"
fi
validate_summaries "summaries (MIG) valid against docs/summary.schema.json" "$TRACERD_FILE"
stop_tracerd

echo "== gpu_accounting = enable turns accounting on"
: >"$NVLOG"
script "$(devices 0)"
TRACERD_TEST_NVML_LIB=$DOUBLE start_tracerd gpu3 -o gpu_accounting=enable || exit 1
check "tracerd set accounting mode on each GPU" poll_until 10 calls_at_least nvmlDeviceSetAccountingMode 2
check "tracer status: gpu_counting: accounting" status_has "^gpu_counting: accounting"
stop_tracerd

echo "== a hung NVML call stalls neither tracer status nor the jobs"
script "$(devices 0)" "energy 0 1000000" "hang nvmlDeviceGetComputeRunningProcesses_v3"
TRACERD_TEST_NVML_LIB=$DOUBLE start_tracerd gpu4 -o sample_interval_ms=200 || exit 1
check "tracer status answers, and names the hung call" poll_until 15 status_has \
	"^gpu:      NVML call nvmlDeviceGetComputeRunningProcesses has not returned"
# the call hangs while the script says so (this case never lets it go):
# 10 status replies after tracerd named it, each with its own deadline
# of 30 s, and still named after them
python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/probe.out" "$TMP/probe.stop" --min 10 &
probe_pid=$!
touch "$TMP/probe.stop"
wait_until 300 "the status probe's 10 replies" proc_gone "$probe_pid"
wait "$probe_pid"
echo "    status round trips (information): $(cat "$TMP/probe.out")"
check "tracer status answered 10 times while the NVML call hangs, none unanswered (30 s each)" \
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['failed'] == 0 and d['n'] >= 10))" "$TMP/probe.out"
check "and the call still hangs after them" status_has \
	"^gpu:      NVML call nvmlDeviceGetComputeRunningProcesses has not returned"
if trc run --job-file "$TMP/job.hung" --gpus 0 -- true; then
	wait_until 60 "the summary of the job ended while NVML hangs" summary_in "$TMP/job.hung"
	chk "its summary counts the GPU answers that did not come" "$TMP/job.hung" "g['answers_missing'] >= 1"
else
	fail "tracer run did not run while NVML hangs"
fi
kill -TERM "$TRACERD_PID"
wait_until 60 "tracerd to exit on SIGTERM while the NVML call hangs" proc_gone "$TRACERD_PID" &&
	check "tracerd stopped while the NVML call hung (the script still holds it)" \
		grep -qx "hang nvmlDeviceGetComputeRunningProcesses_v3" "$SCRIPT"
stop_tracerd

echo "== no NVIDIA library"
TRACERD_TEST_NVML_LIB=$TMP/none/libnvidia-ml.so.1 start_tracerd gpu5 || exit 1
check "tracer status: no NVIDIA GPU" poll_until 10 status_has "^gpu:      no NVIDIA GPU"
if trc run --job-file "$TMP/job.none" -- true && trc run --job-file "$TMP/job.none2" --gpus 0 -- true; then
	wait_until 60 "the summaries without NVML" summary_in "$TMP/job.none2"
	chk "a job with no GPU allocated: no gpu part" "$TMP/job.none" "'gpu' not in s and 'gpu_counting' not in s"
	chk "a job allocated a GPU: gpu_counting none, the allocation kept, no flag" "$TMP/job.none2" \
		"s['gpu_counting'] == 'none' and g['allocated'] == '0' and not any(f['id'].startswith('gpu_') for f in s['flags'])"
fi
validate_summaries "summaries (no NVML) valid against docs/summary.schema.json" --min 2 "$TRACERD_FILE"
check "tracer run --gpus refuses a bad list" not tr_cli run --gpus '0;rm' -- true
stop_tracerd
finish
