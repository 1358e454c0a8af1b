#!/bin/bash
# run.sh BUILD [PART...] - tracer's overhead and accuracy benchmark (make
# bench).  Every ratio is measured side by side in one run: repetitions
# alternate "without tracerd" and "with tracerd tracking the workload",
# and the table shows medians.  Results are reported in docs/benchmarks.md.
#
# PARTs (default: all but switch, in this order):
#   tracerd  exec storm, CPU- and I/O-bound workloads, tracerd's own cost
#   wrapper  tracer-wrap start-up, hung metadata endpoints, its own CPU
#   slurm    Slurm job start with the SPANK plugin (tracerd up, stopped,
#            stale socket, hung) and summary delay, on a local cluster
#   clickhouse  job end -> row latency, replay of a 10,000-summary spool,
#            tracerd's RSS with that spool (bench/clickhouse.sh)
#   loop     tracerd's answers while a job with 3,000 live processes ends,
#            and while the HTTP sink waits on a collector that never
#            answers (p50 of REPS runs of each)
#   netio    loopback TCP and direct I/O with tracerd running/stopped and
#            tracked (bench/netio.sh)
#   switch   the per-switch hook: JOBS (nproc) spawners' tracked exec
#            storm and JOBS/2 untracked ping-pongs (nothing attached, an
#            empty sched_switch program, tracerd) in alternating pairs,
#            median and spread, bpf_stats per call (bench/switch.sh)
#   datalake the datalake at scale: DL_JOBS (20,000 here, a quick run;
#            DL_JOBS=1000000 for the scale of docs/benchmarks.md) Slurm
#            jobs into ClickHouse, insert and load rates, bytes on disk,
#            query and command times (bench/datalake.sh)
#   redact   redaction of one exec record (job_proc_exec), ns per exec,
#            for a benign argv and the worst case a user can choose;
#            REDACT_BASE=OTHER_BUILD/libtracer.a compares with another
#            build (bench/redact_exec.c); needs no root
#   peers    tracer against the collectors sites run today on the same
#            pipeline: fidelity and cost (bench/peers.sh, make bench-peers;
#            not in the default set: it installs and runs other tools)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
shift $(($# > 0 ? 1 : 0))
PARTS=${*:-tracerd redact wrapper slurm clickhouse loop netio datalake}
for p in $PARTS; do
	case $p in
	tracerd | wrapper | slurm | clickhouse | loop | netio | switch | redact | datalake | peers) ;;
	*) echo "bench/run.sh: unknown part '$p' (tracerd, wrapper, slurm, clickhouse, loop, netio, switch, redact, datalake, peers)" >&2; exit 2 ;;
	esac
done
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-bench.XXXXXX)
REPS=${REPS:-5}
STORM=${STORM:-20000}
. "$TOP/tests/lib.sh"
trap 'stop_tracerd; rm -rf "$TMP"' EXIT
need_root
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
header_done=
header() {
	[ -n "$header_done" ] && return
	header_done=1
	echo
	echo "tracer benchmark: $(nproc) CPUs, kernel $(uname -r), $REPS repetitions, medians"
	echo
	row "measure" "without" "with tracer" "ratio" "target"
	row "----------------------------------------------" "------------" "------------" "--------" "----------"
}
rc=0

# seconds of wall time of a command
timeit() {
	local s e
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
tracerd_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$TRACERD_PID/stat"; }
tracerd_hwm_kb() { awk '/VmHWM/ {print $2}' "/proc/$TRACERD_PID/status"; }

tracerd_part() {
	declare -A base track
	workloads=(storm cpu io pingpong)
	cmd_storm=("$H/spawner" /dev/null "$STORM" "$H/tiny" 0)
	cmd_pingpong=("$H/pingpong" 200000)
	cmd_cpu=("$H/spin" 3000)
	cmd_io=("$H/iorw" "$TMP/io.dat" 1073741824)

	for rep in $(seq 1 "$REPS"); do
		echo "repetition $rep/$REPS" >&2
		for w in "${workloads[@]}"; do
			eval "cmd=(\"\${cmd_$w[@]}\")"
			base[$w]+="$(timeit "${cmd[@]}") "
		done
		start_tracerd bench >/dev/null || exit 1
		for w in "${workloads[@]}"; do
			eval "cmd=(\"\${cmd_$w[@]}\")"
			# the ping-pong is not tracked: the cost of the hooks on others
			if [ "$w" = pingpong ]; then
				track[$w]+="$(timeit "${cmd[@]}") "
			else
				track[$w]+="$(timeit tr_cli run -- "${cmd[@]}") "
			fi
		done
		stop_tracerd
	done

	# Processes recorded, drops and tracerd's own cost: one daemon, storms of
	# $STORM processes until 200,000 were tracked.
	start_tracerd bench >/dev/null || exit 1
	cpu0=$(tracerd_cpu)
	trun "$TMP/job1" -- "${cmd_storm[@]}"
	cpu1=$(tracerd_cpu)
	wait_until 10 "the storm job's summary" summary_of_job "$TMP/job1" || exit 1
	recorded=$(python3 -c '
import json, sys
uid = open(sys.argv[2]).read().strip()
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s["job"] == uid:
        t = [t for t in s["tools"] if t["tool"] == "tiny"]
        print(t[0]["processes"] if t else 0, s["drops"]["events"])' "$TRACERD_FILE" "$TMP/job1")
	hwm20=$(tracerd_hwm_kb)
	total=$STORM
	while [ "$total" -lt 200000 ]; do
		tr_cli run -- "${cmd_storm[@]}" >/dev/null 2>&1
		total=$((total + STORM))
	done
	hwm200=$(tracerd_hwm_kb)
	drops=$(tr_cli status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["drops"])')
	stop_tracerd

	ratio() { echo "scale=4; $2 / $1" | bc -l; }
	header
	for w in "${workloads[@]}"; do
		b=$(echo "${base[$w]}" | tr ' ' '\n' | grep . | median)
		t=$(echo "${track[$w]}" | tr ' ' '\n' | grep . | median)
		case $w in
		storm) label="(a) exec storm, $STORM fork+exec+exit (s)"; target="<= 1.05" ;;
		cpu) label="(b) CPU-bound, 3 s of spinning (s)"; target="<= 1.01" ;;
		io) label="(c) I/O-bound, 1 GiB write+read (s)"; target="<= 1.01" ;;
		pingpong) label="(d) untracked pipe ping-pong, 200,000 trips (s)"; target="<= 1.01" ;;
		esac
		row "$label" "$(printf %.3f "$b")" "$(printf %.3f "$t")" "$(printf %.3f "$(ratio "$b" "$t")")" "$target"
	done
	set -- $recorded
	row "processes recorded / run (exec storm)" "$STORM" "${1:-0}" "$(printf %.3f "$(ratio "$STORM" "${1:-0}")")" "1.000"
	row "events dropped (storm job / whole run)" "" "${2:-?} / $drops" "" "0"
	row "tracerd CPU s per 1,000 processes" "" "$(printf %.4f "$(echo "($cpu1 - $cpu0) * 1000 / $STORM" | bc -l)")" "" ""
	row "tracerd peak RSS after $STORM processes (MiB)" "" "$(printf %.1f "$(echo "$hwm20 / 1024" | bc -l)")" "" "< 32"
	row "tracerd peak RSS after $total processes (MiB)" "" "$(printf %.1f "$(echo "$hwm200 / 1024" | bc -l)")" "" "< 32, flat"
}

# probe_stats OUT...: p50 over runs (probe.py's OUT files) of each run's
# median and max status round trip: "MEDIAN / MAX (N asked, F unanswered)"
probe_stats() {
	python3 - "$@" <<'PY'
import json, statistics, sys
d = [json.load(open(f)) for f in sys.argv[1:]]
print("%.1f / %.1f (%d asked, %d unanswered)" % (
    statistics.median(x["median_ms"] for x in d), statistics.median(x["max_ms"] for x in d),
    sum(x["n"] for x in d), sum(x["failed"] for x in d)))
PY
}

# tracer status asked every 10 ms while a job ends with 3,000 live
# processes (20 of them zombie leaders with a live thread): the loop
# settles them a few per step and answers in between.  REPS runs.
loop_close() {
	local r probe outs=()
	start_tracerd bench >/dev/null || exit 1
	for r in $(seq 1 "$REPS"); do
		mkfifo "$TMP/hold.$r.fifo"
		python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/close.$r" "$TMP/close.$r.stop" &
		probe=$!
		poll_until 30 test -e "$TMP/close.$r.ready"
		trun "$TMP/jhold.$r" -- "$H/holdkids" "$TMP/hold.$r.fifo" 3000 20 >/dev/null 2>&1
		wait_until 60 "the summary of the job with 3,000 live processes" summary_of_job "$TMP/jhold.$r"
		touch "$TMP/close.$r.stop"
		wait "$probe"
		python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))' "$TMP/hold.$r.fifo" 2>/dev/null
		outs+=("$TMP/close.$r")
	done
	stop_tracerd
	header
	row "status during a 3,000-process close: median / max ms (p50 of $REPS)" "" "$(probe_stats "${outs[@]}")" "" "max < 100"
}

# tracer status asked every 10 ms while the HTTP sink waits on a collector
# that holds its request (tests/delivery/httpd.py hang) and 10 jobs end:
# the sink's thread waits, the loop answers.  REPS runs on one hang.
loop_hung_sink() {
	local r probe outs=() port=18195 httpd
	python3 "$TOP/tests/delivery/httpd.py" hang "$port" "$TMP/hang.log" >/dev/null 2>&1 &
	httpd=$!
	poll_until 30 python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)"
	start_tracerd benchhang -o sinks=file,http -o http_url="http://127.0.0.1:$port/" \
		-o http_timeout_ms=120000 >/dev/null || { kill "$httpd"; exit 1; }
	trun "$TMP/jfirst" -- /bin/true
	wait_until 30 "the collector to hold the HTTP sink's request" grep -q '"held"' "$TMP/hang.log"
	for r in $(seq 1 "$REPS"); do
		python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/hung.$r" "$TMP/hung.$r.stop" --min 20 &
		probe=$!
		for i in $(seq 1 10); do
			tr_cli -o client_timeout_ms=2000 run -- /bin/sh -c '/bin/true; /bin/echo x >/dev/null' >/dev/null
		done
		touch "$TMP/hung.$r.stop"
		wait "$probe"
		outs+=("$TMP/hung.$r")
	done
	# the rows hold only if the sink was still waiting throughout
	dtrue 'sink("http")["delivered"] == 0 and sink("http")["failures"] == 0' ||
		echo "bench: the HTTP sink stopped waiting before the end: the row is not the hung case" >&2
	stop_tracerd
	kill -TERM "$httpd"
	wait "$httpd" 2>/dev/null
	header
	row "status while the HTTP sink hangs, 10 jobs end: median / max ms (p50 of $REPS)" "" "$(probe_stats "${outs[@]}")" "" "max < 100"
}

loop_part() {
	loop_close
	loop_hung_sink
}

# redact_part: ns per exec record of job_proc_exec, this build against
# REDACT_BASE (a libtracer.a) when given
redact_part() {
	local lib b t
	for lib in ${REDACT_BASE:+"$REDACT_BASE"} "$BUILD/libtracer.a"; do
		if ! cc -O2 -D_GNU_SOURCE -I"$TOP/lib" -I"$BUILD" -I"$TOP/bpf" -o "$TMP/redact_exec" \
			"$TOP/bench/redact_exec.c" "$lib" -lcjson -lm; then
			echo "redact: cannot build bench/redact_exec.c with $lib" >&2
			rc=1
			return
		fi
		"$TMP/redact_exec" "${REDACT_SECS:-0.5}" >"$TMP/redact.$([ "$lib" = "$BUILD/libtracer.a" ] && echo this || echo base)"
	done
	header
	while IFS='|' read -r name len t; do
		b=$(awk -F'|' -v n="$name" '$1 == n {print $3}' "$TMP/redact.base" 2>/dev/null)
		row "redact $name: ns/exec" "${b:-}" "$t" "$([ -n "$b" ] && printf %.4f "$(echo "$t / $b" | bc -l)")" ""
	done <"$TMP/redact.this"
}

if has_part tracerd; then
	tracerd_part
fi
if has_part redact; then
	redact_part
fi
if has_part loop; then
	loop_part
fi
if has_part wrapper; then
	header
	"$TOP/bench/wrapper_startup.sh" "$BUILD" || rc=1
	"$TOP/bench/wrapper_metadata.sh" "$BUILD" || rc=1
fi
if has_part slurm; then
	header
	"$TOP/bench/slurm_latency.sh" "$BUILD" || rc=1
fi
if has_part clickhouse; then
	header
	"$TOP/bench/clickhouse.sh" "$BUILD" || rc=1
fi
if has_part netio; then
	header
	"$TOP/bench/netio.sh" "$BUILD" || rc=1
fi
if has_part switch; then
	"$TOP/bench/switch.sh" "$BUILD" || rc=1
fi
if has_part datalake; then
	DL_JOBS=${DL_JOBS:-20000} "$TOP/bench/datalake.sh" "$BUILD" || rc=1
fi
if has_part peers; then
	"$TOP/bench/peers.sh" "$BUILD" || rc=1
fi
exit $rc
