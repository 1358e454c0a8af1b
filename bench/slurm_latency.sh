#!/bin/bash
# slurm_latency.sh BUILD - what the SPANK plugin adds to a Slurm job, on a
# real single-node cluster started like the Slurm suite's
# (tests/slurm/cluster.sh: munge, slurmctld, slurmd on loopback):
#  - start latency, from just before srun to the task's first instruction
#    (`srun /bin/date +%s%N`), without the plugin and with it when tracerd
#    is up, stopped, a stale socket, or hung (accepts, never answers;
#    tests/slurm/hang_server.py) with timeout_ms=200.  Samples of each
#    case are interleaved so that drift hits them alike;
#  - how long after srun returns the job's summary is in tracerd's file.
# Prints rows of bench/run.sh's table, medians of SLURM_ROUNDS samples
# (default 7).  Needs root; everything started is stopped by pid.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
HERE=$TOP/tests/slurm
ROUNDS=${SLURM_ROUNDS:-7}
PLUGIN=$BUILD/spank_tracer.so
. "$TOP/tests/lib.sh"

die() { echo "slurm_latency: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it runs slurmd and munged)"
for c in munged slurmctld slurmd srun sbatch squeue sinfo python3; do
	command -v "$c" >/dev/null || die "$c is not installed (slurm-wlm, munge)"
done
for f in "$PLUGIN" "$BUILD/tracerd" "$BUILD/tracer"; do
	[ -e "$f" ] || die "$f missing (make all)"
done
if pgrep -x slurmctld >/dev/null; then
	echo "slurm_latency: warning: another slurmctld runs on this machine; its work skews the medians" >&2
fi

T=$(mktemp -d /tmp/tracer-slurmbench.XXXXXX) || die "mktemp failed"
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
mkdir -p "$CLUSTER_DIR"
SOCK=$T/tracerd.sock
NDJSON=$T/jobs.ndjson
PIN_DIR=/sys/fs/bpf/tracer-slurmbench-$$
TRACERD_TAG=""
HANG_TAG=""
. "$HERE/cluster.sh"

tracerd_start() {
	cluster_tracerd_conf "$T/tracer.conf" "$TOP/contrib/rules/tools.rules"
	"$BUILD/tracerd" -c "$T/tracer.conf" >"$T/tracerd.log" 2>&1 </dev/null &
	TRACERD_TAG=$(proc_tag $!)
	poll_until 30 "$BUILD/tracer" -o socket="$SOCK" status
}
tracerd_gone() { ! alive_ours "$TRACERD_TAG"; }
tracerd_stop() {
	[ -n "$TRACERD_TAG" ] || return 0
	kill_ours TERM "$TRACERD_TAG"
	poll_until 10 tracerd_gone || kill_ours KILL "$TRACERD_TAG"
	wait "${TRACERD_TAG%%:*}" 2>/dev/null
	TRACERD_TAG=""
}

cleanup() {
	cluster_cancel_jobs
	tracerd_stop
	stop_tagged "$HANG_TAG"
	cluster_stop
	[ -d "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PLUGSTACK_LINE="optional $PLUGIN socket=$SOCK"

row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One start-latency sample (ms), once the previous job has left the node
# (a new one would wait for it).
latency_sample() {
	poll_until 30 cluster_no_jobs || die "jobs still queued after 30 s"
	t0=$(date +%s%N)
	t1=$(srun -n1 -J tlat /bin/date +%s%N 2>/dev/null) || die "srun failed"
	echo $(((t1 - t0) / 1000000))
}

# measure PHASE CFG...: ROUNDS samples of each configuration, interleaved,
# into $T/lat.PHASE.CFG
measure() {
	phase=$1
	shift
	for cfg in "$@"; do : >"$T/lat.$phase.$cfg"; done
	for _ in $(seq "$ROUNDS"); do
		for cfg in "$@"; do
			plugstack_for "$cfg"
			latency_sample >>"$T/lat.$phase.$cfg" || exit 1
		done
	done
}

lines() { if [ -f "$NDJSON" ]; then wc -l <"$NDJSON"; else echo 0; fi; }
more_lines() { [ "$(lines)" -gt "$1" ]; }

echo "Slurm: starting a single-node cluster" >&2
cluster_start "$PLUGSTACK_LINE" || die "the Slurm cluster did not start (logs in $CLUSTER_DIR)"
tracerd_start || die "tracerd did not start: $(tail -n 5 "$T/tracerd.log")"

echo "Slurm: $ROUNDS start-latency samples without the plugin and with tracerd up" >&2
measure up none live

echo "Slurm: $ROUNDS summaries, time from srun's return to the summary" >&2
plugstack_for live
: >"$T/sum.ms"
for _ in $(seq "$ROUNDS"); do
	poll_until 30 cluster_no_jobs || die "jobs still queued after 30 s"
	n=$(lines)
	srun -n1 -J tsum /bin/true || die "srun failed"
	t0=$(date +%s%N)
	poll_until 10 more_lines "$n" || die "no summary within 10 s of srun's return"
	echo $((($(date +%s%N) - t0) / 1000000)) >>"$T/sum.ms"
done

echo "Slurm: $ROUNDS start-latency samples each without tracerd: stopped, stale socket, hung" >&2
tracerd_stop
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/stale.sock"
python3 "$HERE/hang_server.py" "$T/hung.sock" "$T/hung.count" &
HANG_TAG=$(proc_tag $!)
poll_until 10 test -S "$T/hung.sock" || die "the hung tracerd stand-in did not start"
measure down none stopped stale hung

up=$(median "$T/lat.up.none")
down=$(median "$T/lat.down.none")
m=$(median "$T/lat.up.live")
row "Slurm start, srun to task: tracerd up (ms)" "$up" "$m" "$(printf %+d $((m - up)))" ""
for cfg in stopped stale hung; do
	case $cfg in
	stopped) label="Slurm start: plugin, tracerd stopped (ms)" ;;
	stale) label="Slurm start: plugin, stale socket (ms)" ;;
	hung) label="Slurm start: plugin, tracerd hung, 200 ms (ms)" ;;
	esac
	m=$(median "$T/lat.down.$cfg")
	row "$label" "$down" "$m" "$(printf %+d $((m - down)))" "<= +250 ms"
done
row "Slurm: summary in the file after srun (ms)" "" "$(median "$T/sum.ms")" "" "< 1000"
