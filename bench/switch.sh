#!/bin/bash
# switch.sh BUILD - the cost of tracer's per-switch hook (tracer_switch on
# tp_btf/sched_switch), scaled to the machine: JOBS (default: nproc)
# spawners run a tracked exec storm at once, and JOBS/2 untracked pipe
# ping-pongs run at once, in alternating pairs ($PAIRS; the order inside
# a pair alternates too):
#   ping-pong (a) nothing attached, (b) an empty program attached to
#   sched_switch (bench/switch_floor.bpf.c: the cost of any program
#   there), (c) tracerd running (untracked: nobody traces the ping-pong);
#   exec storm without tracerd, tracked by tracerd (`tracer run`), and
#   under BSD process accounting (acct(2): a record written by the kernel
#   at every exit, the lower bound of exact-at-exit cost; ACCT=0 leaves
#   it out, as on a host whose own accounting is on).
# Prints medians, the ratios' median and spread (lowest-highest of the
# pairs), processes per second, and the kernel's own count of time per
# call (bpf_stats) of tracer_switch and of the empty program: each alone
# on the tracepoint (the first program on a tracepoint pays cold caches
# the later ones do not, so each is measured in the same place), and
# both at once in one ping-pong.  Ends with a markdown row for the table
# in docs/benchmarks.md.  Part "switch" of bench/run.sh;
# bench/device_run.sh runs it on a lent machine.
#
# Environment: JOBS, PAIRS (9), TRIPS (200000 round trips per ping-pong),
# STORM (1000 fork+exec+exit per spawner), STATS_REPS (5 bpf_stats runs
# of each), BUDGET_S (no new pair starts once the run is this old;
# default none).  Needs root, bash and awk; the binaries come from BUILD
# (BUILD/bench/switch_floor is static, with its BPF object inside).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
SF=$BUILD/bench/switch_floor
TMP=$(mktemp -d /tmp/tracer-bench-switch.XXXXXX)
JOBS=${JOBS:-$(nproc)}
PAIRS=${PAIRS:-9}
TRIPS=${TRIPS:-200000}
STORM=${STORM:-1000}
STATS_REPS=${STATS_REPS:-5}
BUDGET_S=${BUDGET_S:-0}
ACCT=${ACCT:-1}
PP=$((JOBS / 2 > 0 ? JOBS / 2 : 1))
. "$TOP/tests/lib.sh"
trap '[ "$ACCT" = 1 ] && "$SF" -Z; stop_tracerd; rm -rf "$TMP"' EXIT
need_root
for f in "$SF" "$H/pingpong" "$H/spawner" "$H/tiny" "$BUILD/tracerd" "$BUILD/tracer"; do
	[ -x "$f" ] || { echo "FAIL: $f missing (make all)" >&2; exit 1; }
done
START=$SECONDS

# field VALUE of "KEY VALUE" lines, or "stats NAME ... ns_per_call X"
wall_of() { awk '$1 == "wall_s" { print $2 }' "$1"; }
percall_of() { awk -v n="$2" '$1 == "stats" && $2 == n && $4 > 0 { print $8 }' "$1"; }
calls_of() { awk -v n="$2" '$1 == "stats" && $2 == n { print $6 }' "$1"; }
# wall time of one timed run, its output kept in $TMP/last; fails loudly
timed() {
	if ! "$@" >"$TMP/last" 2>"$TMP/last.err"; then
		echo "FAIL: $* failed:" >&2
		sed 's/^/    /' "$TMP/last.err" "$TMP/last" >&2
		exit 1
	fi
	wall_of "$TMP/last"
}
# "median min max" of the numbers on stdin (printf format $1, default %.3f)
spread() { sort -g | awk -v f="${1:-%.3f}" '{a[NR]=$1} END {if (!NR) {print "- - -"; exit}
	m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf f " " f " " f "\n", m, a[1], a[NR]}'; }
med() { echo "$1" | tr ' ' '\n' | grep . | spread | cut -d' ' -f1; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
row() { printf "| %-52s | %9s | %9s | %23s | %-8s |\n" "$@"; }

pingpong() { timed "$SF" "$@" -j "$PP" "$H/pingpong" "$TRIPS"; }
storm_off() { timed "$SF" -j "$JOBS" "$H/spawner" /dev/null "$STORM" "$H/tiny" 0; }
storm_acct() { if [ "$ACCT" = 1 ]; then timed "$SF" -P "$TMP/pacct" -j "$JOBS" "$H/spawner" /dev/null "$STORM" "$H/tiny" 0; else echo 0; fi; }
storm_on() { timed tr_cli run -- "$SF" -j "$JOBS" "$H/spawner" /dev/null "$STORM" "$H/tiny" 0; }
tracerd_up() { start_tracerd bench >/dev/null || exit 1; }

# programs loaded after this one are ours (not another tracerd's on the host)
BASE=$("$SF" -m) || exit 1

pa='' pb='' pc='' rb='' rc='' so='' sn='' rs='' sa='' ra='' done_pairs=0
for i in $(seq 1 "$PAIRS"); do
	if [ "$BUDGET_S" -gt 0 ] && [ $((SECONDS - START)) -ge "$BUDGET_S" ]; then
		echo "budget of $BUDGET_S s spent: $done_pairs pairs of $PAIRS" >&2
		break
	fi
	echo "pair $i/$PAIRS" >&2
	if [ $((i % 2)) -eq 1 ]; then
		a=$(pingpong) && b=$(pingpong -f) && s0=$(storm_off) && s2=$(storm_acct) || exit 1
		tracerd_up
		c=$(pingpong) && s1=$(storm_on) || exit 1
		stop_tracerd
	else
		tracerd_up
		s1=$(storm_on) && c=$(pingpong) || exit 1
		stop_tracerd
		s2=$(storm_acct) && s0=$(storm_off) && b=$(pingpong -f) && a=$(pingpong) || exit 1
	fi
	echo "  ping-pong none $a empty $b tracerd $c; storm stopped $s0 tracked $s1 acct $s2" >&2
	pa+="$a " pb+="$b " pc+="$c " so+="$s0 " sn+="$s1 " sa+="$s2 "
	rb+="$(div "$b" "$a") " rc+="$(div "$c" "$a") " rs+="$(div "$s1" "$s0") " ra+="$(div "$s2" "$s0") "
	done_pairs=$i
done
[ "$done_pairs" -gt 0 ] || { echo "FAIL: no pair ran" >&2; exit 1; }

# bpf_stats: the empty program alone (tracerd stopped) and tracer_switch
# alone (tracerd running), alternating; then both in one ping-pong
fl='' ts='' tcalls=0
for i in $(seq 1 "$STATS_REPS"); do
	pingpong -f -s -a "$BASE" >/dev/null || exit 1
	fl+="$(percall_of "$TMP/last" switch_floor) "
	tracerd_up
	pingpong -s -a "$BASE" >/dev/null || exit 1
	ts+="$(percall_of "$TMP/last" tracer_switch) "
	tcalls=$(calls_of "$TMP/last" tracer_switch)
	[ "$i" -lt "$STATS_REPS" ] && stop_tracerd
done
pingpong -f -s -a "$BASE" >/dev/null || exit 1
both_ts=$(percall_of "$TMP/last" tracer_switch)
both_fl=$(percall_of "$TMP/last" switch_floor)
stop_tracerd

ts_sp=$(echo "$ts" | tr ' ' '\n' | grep . | spread %.1f) fl_sp=$(echo "$fl" | tr ' ' '\n' | grep . | spread %.1f)
ts_m=${ts_sp%% *} fl_m=${fl_sp%% *}
minus=$(awk -v a="$ts_m" -v b="$fl_m" 'BEGIN { printf "%.1f", a - b }')
rate() { awk -v s="$1" -v n=$((JOBS * STORM)) 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)

echo
echo "per-switch hook: $(nproc) CPUs ($cpu), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) at the end;"
echo "JOBS=$JOBS: $PP ping-pongs of $TRIPS round trips at once, $JOBS spawners of $STORM processes at once; $done_pairs alternating pairs"
echo
row "measure" "without" "with" "ratio, median (min-max)" "target"
row "----------------------------------------------------" "---------" "---------" "-----------------------" "--------"
# shellcheck disable=SC2046
set -- $(echo "$rb" | tr ' ' '\n' | grep . | spread)
row "ping-pong, empty program on sched_switch (s)" "$(med "$pa")" "$(med "$pb")" "$1 ($2-$3)" ""
# shellcheck disable=SC2046
set -- $(echo "$rc" | tr ' ' '\n' | grep . | spread)
pp_ratio=$1 pp_lo=$2 pp_hi=$3
row "ping-pong, tracerd running, untracked (s)" "$(med "$pa")" "$(med "$pc")" "$1 ($2-$3)" "<= 1.01"
# shellcheck disable=SC2046
set -- $(echo "$rs" | tr ' ' '\n' | grep . | spread)
st_ratio=$1 st_lo=$2 st_hi=$3
row "exec storm, $((JOBS * STORM)) processes, tracked (s)" "$(med "$so")" "$(med "$sn")" "$1 ($2-$3)" "<= 1.05"
if [ "$ACCT" = 1 ]; then
	# shellcheck disable=SC2046
	set -- $(echo "$ra" | tr ' ' '\n' | grep . | spread)
	row "exec storm, process accounting on (s)" "$(med "$so")" "$(med "$sa")" "$1 ($2-$3)" ""
	row "  tracer's ratio minus process accounting's" "" "" "$(awk -v a="$st_ratio" -v b="$1" 'BEGIN { printf "%+.3f", a - b }')" "<= 0.03"
	acct_cell="$1 ($2-$3)"
else
	acct_cell="not run"
fi
off_rate=$(rate "$(med "$so")") on_rate=$(rate "$(med "$sn")")
row "exec storm, processes per second" "$off_rate" "$on_rate" "$(div "$on_rate" "$off_rate")" ""
echo
echo "bpf_stats per call, ping-pong (median of $STATS_REPS, min-max; each alone on sched_switch):"
echo "  tracer_switch $ts_m ns ($(echo "${ts_sp#* }" | tr ' ' -)) over $tcalls calls; empty program $fl_m ns ($(echo "${fl_sp#* }" | tr ' ' -)); difference $minus ns"
echo "  both attached at once (tracer_switch first): tracer_switch $both_ts ns, empty program $both_fl ns"
echo
echo "row for docs/benchmarks.md (per-switch hook, one row per machine):"
echo
echo "| machine | CPUs | kernel | JOBS | ping-pong: tracerd / none, median (min-max) | exec storm proc/s: none / tracked (time ratio) | tracer_switch ns/call | empty program ns/call | difference | exec storm under process accounting (time ratio) |"
echo "| ------- | ---- | ------ | ---- | ------------------------------------------- | ---------------------------------------------- | --------------------- | --------------------- | ---------- | ---------- |"
echo "| $cpu | $(nproc) | $(uname -r) | $JOBS | $pp_ratio ($pp_lo-$pp_hi) | $off_rate / $on_rate ($st_ratio, $st_lo-$st_hi) | $ts_m | $fl_m | $minus | $acct_cell |"
