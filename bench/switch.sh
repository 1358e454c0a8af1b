#!/bin/bash
# switch.sh BUILD - the cost of tracer's per-switch hook on everyone: an
# untracked pipe ping-pong (two processes, $TRIPS round trips) and a tracked
# exec storm, each run with tracerd stopped and running, in alternating
# pairs ($PAIRS of them).  Prints the median ratio and the spread (lowest and
# highest per-pair ratio), and the hook's own cost per call from the
# kernel's BPF statistics (kernel.bpf_stats_enabled, switched on only for
# one ping-pong and back off).  Part "switch" of bench/run.sh.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-bench-switch.XXXXXX)
PAIRS=${PAIRS:-9}
TRIPS=${TRIPS:-200000}
STORM=${STORM:-5000}
. "$TOP/tests/lib.sh"
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$stats_was"; stop_tracerd; rm -rf "$TMP"' EXIT
need_root

timeit() {
	local s e
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
# "median min max" of the numbers on stdin
spread() { sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.3f %.3f %.3f\n", m, a[1], a[NR]}'; }
row() { printf "| %-46s | %8s | %8s | %14s | %-8s |\n" "$@"; }

pp_off='' pp_on='' pp_ratio='' st_off='' st_on='' st_ratio=''
for i in $(seq 1 "$PAIRS"); do
	echo "pair $i/$PAIRS" >&2
	# the order inside a pair alternates too: a load that changes
	# during the run weighs on both sides
	if [ $((i % 2)) -eq 1 ]; then
		a=$(timeit "$H/pingpong" "$TRIPS"); sa=$(timeit "$H/spawner" /dev/null "$STORM" "$H/tiny" 0)
		start_tracerd bench >/dev/null || exit 1
		b=$(timeit "$H/pingpong" "$TRIPS"); sb=$(timeit tr_cli run -- "$H/spawner" /dev/null "$STORM" "$H/tiny" 0)
		stop_tracerd
	else
		start_tracerd bench >/dev/null || exit 1
		b=$(timeit "$H/pingpong" "$TRIPS"); sb=$(timeit tr_cli run -- "$H/spawner" /dev/null "$STORM" "$H/tiny" 0)
		stop_tracerd
		a=$(timeit "$H/pingpong" "$TRIPS"); sa=$(timeit "$H/spawner" /dev/null "$STORM" "$H/tiny" 0)
	fi
	echo "  ping-pong stopped $a running $b; storm stopped $sa running $sb" >&2
	pp_off+="$a "; pp_on+="$b "; pp_ratio+="$(echo "$b / $a" | bc -l) "
	st_off+="$sa "; st_on+="$sb "; st_ratio+="$(echo "$sb / $sa" | bc -l) "
done

# the hook's own time per call, as the kernel counts it
start_tracerd bench >/dev/null || exit 1
sysctl -qw kernel.bpf_stats_enabled=1
"$H/pingpong" "$TRIPS" >/dev/null 2>&1
percall=$(bpftool -j prog show name tracer_switch | python3 -c '
import json, sys
p = json.load(sys.stdin)
p = p[0] if isinstance(p, list) else p
print("%.1f ns over %d calls" % (p.get("run_time_ns", 0) / max(p.get("run_cnt", 1), 1), p.get("run_cnt", 0)))')
sysctl -qw kernel.bpf_stats_enabled="$stats_was"
stop_tracerd

med() { echo "$1" | tr ' ' '\n' | grep . | spread | cut -d' ' -f1; }
echo
echo "per-switch hook: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $PAIRS alternating pairs"
echo
row "measure" "stopped" "running" "ratio (min-max)" "target"
row "----------------------------------------------" "--------" "--------" "--------------" "--------"
# shellcheck disable=SC2046
set -- $(echo "$pp_ratio" | tr ' ' '\n' | grep . | spread)
row "untracked pipe ping-pong, $TRIPS trips (s)" "$(printf %.3f "$(med "$pp_off")")" "$(printf %.3f "$(med "$pp_on")")" "$1 ($2-$3)" "<= 1.01"
# shellcheck disable=SC2046
set -- $(echo "$st_ratio" | tr ' ' '\n' | grep . | spread)
row "exec storm, $STORM fork+exec+exit (s)" "$(printf %.3f "$(med "$st_off")")" "$(printf %.3f "$(med "$st_on")")" "$1 ($2-$3)" "<= 1.05"
echo
echo "tracer_switch (sched_switch hook), bpf_stats during one ping-pong: $percall"
