#!/bin/bash
# exit_tail.sh BUILD - how much CPU a process spends after
# sched_process_exit fires: what a hook there, instead of the last context
# switch, would miss of the CPU that wait4() reports (since v6.16 the
# tracepoint fires before exit_mm(), so unmapping the memory, closing the
# files and the rest of do_exit() come after it).  Runs
# tests/helpers/touchmem (MIB MiB, default 300, touched then freed by the
# exit) REPS times (default 5), follows it in a tracefs instance of its
# own (sched_process_exit, and sched_switch in and out of it) and sums its
# time on a CPU from the tracepoint to its last switch.  Prints each run
# and the median.  Needs root, tracefs, awk.  docs/benchmarks.md,
# "Per-switch hook".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
MIB=${MIB:-300}
REPS=${REPS:-5}
TR=/sys/kernel/tracing
[ -d "$TR/instances" ] || TR=/sys/kernel/debug/tracing
[ -d "$TR/instances" ] || { echo "FAIL: no tracefs (mount -t tracefs nodev /sys/kernel/tracing)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "FAIL: needs root (tracefs)" >&2; exit 1; }
for f in touchmem spawner; do
	[ -x "$BUILD/tests/helpers/$f" ] || { echo "FAIL: $BUILD/tests/helpers/$f missing (make all)" >&2; exit 1; }
done
INST=$TR/instances/tracer-exittail-$$
TMP=$(mktemp -d /tmp/tracer-exittail.XXXXXX)
# a comm of our own, so that no other process's switches are traced
cp "$BUILD/tests/helpers/touchmem" "$TMP/exittail" || exit 1
cleanup() {
	[ -d "$INST" ] && { echo 0 >"$INST/tracing_on"; rmdir "$INST"; }
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$INST" || { echo "FAIL: cannot make the tracefs instance $INST" >&2; exit 1; }
echo mono >"$INST/trace_clock" 2>/dev/null
if ! { echo 'comm == "exittail"' >"$INST/events/sched/sched_process_exit/filter" &&
	echo 'prev_comm == "exittail" || next_comm == "exittail"' >"$INST/events/sched/sched_switch/filter" &&
	echo 1 >"$INST/events/sched/sched_process_exit/enable" &&
	echo 1 >"$INST/events/sched/sched_switch/enable"; }; then
	echo "FAIL: cannot enable sched_process_exit and sched_switch in $INST" >&2
	exit 1
fi
echo 1 >"$INST/tracing_on"
# run by spawner, which wait4()s it: the CPU the kernel reports for it
for i in $(seq 1 "$REPS"); do
	"$BUILD/tests/helpers/spawner" "$TMP/wait4.$i" 1 "$TMP/exittail" "$MIB" 0 ||
		{ echo "FAIL: touchmem $MIB failed" >&2; exit 1; }
	awk -F'[:,]' '{ print $2 * 1000 }' "$TMP/wait4.$i" >>"$TMP/wait4"
done
echo 0 >"$INST/tracing_on"
cat "$INST/trace" >"$TMP/trace"

# per pid: on-CPU time from sched_process_exit to its last switch out
awk -v mib="$MIB" '
FNR == NR { w[++nw] = $1; next }
function ts(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0; return -1 }
function val(key,   i) { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2); return "" }
/sched_process_exit:/ { p = val("pid"); exited[p] = 1; on[p] = ts(); cpu[p] = 0; order[++n] = p; next }
/sched_switch:/ {
	t = ts(); pp = val("prev_pid"); np = val("next_pid")
	if (pp in exited && on[pp] >= 0) { cpu[pp] += t - on[pp]; on[pp] = -1 }
	if (np in exited) on[np] = t
}
END {
	if (!n) { print "FAIL: no sched_process_exit of the test process traced"; exit 1 }
	for (k = 1; k <= n; k++) {
		v[k] = cpu[order[k]] * 1000
		printf "  run %d (pid %s): %.3f ms on a CPU after sched_process_exit, of %.3f ms in all (wait4)\n", k, order[k], v[k], w[k]
	}
	for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
	m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	printf "%d MiB process: median %.3f ms (%.3f-%.3f) of CPU after sched_process_exit, over %d runs\n", mib, m, v[1], v[n], n
}' "$TMP/wait4" "$TMP/trace"
