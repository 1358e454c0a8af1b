# tracerd.sh - the node's tracerd for the Slurm suites (tests/slurm,
# tests/slurmacct): started with a file sink on $SOCK and $NDJSON, stopped
# by pid.  Needs $TRACERD, $BUILD, $ROOT, $T and cluster.sh (proc_tag,
# alive_ours, kill_ours, cluster_tracerd_conf) and tests/lib.sh.

TRACERD_PID=""

tracerd_start() {
	cluster_tracerd_conf "$T/tracer.conf" "$ROOT/contrib/rules/tools.rules"
	echo "advice_min_runtime_s = 1" >>"$T/tracer.conf" # advice on short test jobs
	# a suite's own lines (tests/slurmacct's sinks)
	[ -z "${TRACERD_EXTRA_CONF:-}" ] || printf '%s\n' "$TRACERD_EXTRA_CONF" >>"$T/tracer.conf"
	"$TRACERD" -c "$T/tracer.conf" >"$T/tracerd.log" 2>&1 </dev/null &
	TRACERD_PID=$(proc_tag $!)
	# up when it answers a status request; a daemon that died ends the wait
	poll_until 30 tracerd_answers_or_died
	alive_ours "$TRACERD_PID" && tracerd_answers && return 0
	echo "tracerd did not come up; its log:" >&2
	tail -n 20 "$T/tracerd.log" >&2
	tracerd_stop
	return 1
}

tracerd_answers() { "$BUILD/tracer" -o socket="$SOCK" status >/dev/null 2>&1; }
tracerd_answers_or_died() { ! alive_ours "$TRACERD_PID" || tracerd_answers; }

tracerd_stop() {
	[ -z "$TRACERD_PID" ] && return 0
	kill_ours TERM "$TRACERD_PID"
	wait_until 10 "tracerd to exit on SIGTERM" not alive_ours "$TRACERD_PID"
	kill_ours KILL "$TRACERD_PID"
	wait "${TRACERD_PID%%:*}" 2>/dev/null
	TRACERD_PID=""
}

