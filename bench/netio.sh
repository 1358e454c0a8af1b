#!/bin/bash
# netio.sh BUILD - cost of the socket and block I/O programs (part `netio`
# of bench/run.sh), in alternating pairs as bench/switch.sh does:
#   (d) an untracked 2 GiB loopback TCP stream, tracerd stopped vs running;
#   (e) the same stream inside a tracked job (`tracer run`) vs stopped;
#   (g) that tracked stream with tracerd counting TCP totals at close
#       (test_no_sock_length: the mode of kernels without sock_send_length);
#   (f) untracked 4 KiB random direct reads at queue depth 1 (fio, FIO_SECS
#       per run, 20 by default), stopped vs running, in FIO_PAIRS pairs.
# The order inside a pair alternates, so that a load changing during the
# run weighs on both sides; the stream pairs and the fio pairs are kept
# apart (a 20 s fio run leaves the VM's disk busy for a moment after it).
# Each row shows the medians, the median of the per-pair ratios and their
# spread.  Then the programs' own time during one untracked and one
# tracked stream and one fio run, from the kernel's BPF statistics
# (switched on only for those three), and tracerd's CPU time: the cost
# the ratios should show on a quiet machine.  Loopback only (port 18750); the fio file is in
# a temp dir under /var/tmp (a block device, not tmpfs).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-bench-netio.XXXXXX)
DISK=$(mktemp -d /var/tmp/tracer-bench-netio.XXXXXX)
PAIRS=${PAIRS:-41}
FIO_PAIRS=${FIO_PAIRS:-5}
FIO_SECS=${FIO_SECS:-20}
BYTES=$((2 * 1024 * 1024 * 1024))
. "$TOP/tests/lib.sh"
stats_was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$stats_was"; stop_tracerd; rm -rf "$TMP" "$DISK"' EXIT
need_root
command -v fio >/dev/null || { echo "FAIL: fio is not installed (apt-get install fio)"; exit 1; }
command -v bpftool >/dev/null || { echo "FAIL: bpftool is not installed (apt-get install bpftool)"; exit 1; }
row() { printf "| %-46s | %10s | %10s | %20s | %-8s |\n" "$@"; }
# "median min max" of the numbers on stdin
spread() { sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.3f %.3f %.3f\n", m, a[1], a[NR]}'; }
med() { echo "$1" | tr ' ' '\n' | grep . | spread | cut -d' ' -f1; }

# the stream: receiver in the background, sender in front; both exit when done
cat >"$TMP/stream.sh" <<SH
rm -f $TMP/ready
$BUILD/tests/helpers/netpeer tcp-recv 18750 $TMP/ready >/dev/null & r=\$!
$BUILD/tests/helpers/netpeer tcp-send 18750 $BYTES $TMP/ready || exit 1
wait \$r
SH
timeit() {
	local s e
	s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "bench/netio.sh: $* failed" >&2
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}
stream() { timeit sh "$TMP/stream.sh"; }
tracked_stream() { timeit tr_cli run -- sh "$TMP/stream.sh"; }
fio_iops() {
	fio --name=rand --filename="$DISK/fio.dat" --size=256M --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --iodepth=1 --runtime="$FIO_SECS" --time_based \
		--output-format=json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}
# lay the file out once, outside the measure
fio --name=prep --filename="$DISK/fio.dat" --size=256M --rw=write --bs=1M --direct=1 \
	--output-format=terse >/dev/null 2>&1 || { echo "FAIL: fio could not write $DISK/fio.dat"; exit 1; }

base=; untr=; trk=; fb=; r_d=; r_e=; r_g=
for i in $(seq 1 "$PAIRS"); do
	echo "netio stream pair $i/$PAIRS" >&2
	if [ $((i % 2)) -eq 1 ]; then
		b=$(stream)
		start_tracerd bench-netio >/dev/null || exit 1
		u=$(stream); t=$(tracked_stream)
		stop_tracerd
		start_tracerd bench-netio-close -o test_no_sock_length=true >/dev/null || exit 1
		c=$(tracked_stream)
		stop_tracerd
	else
		start_tracerd bench-netio-close -o test_no_sock_length=true >/dev/null || exit 1
		c=$(tracked_stream)
		stop_tracerd
		start_tracerd bench-netio >/dev/null || exit 1
		t=$(tracked_stream); u=$(stream)
		stop_tracerd
		b=$(stream)
	fi
	echo "  stopped $b untracked $u tracked $t close-totals $c" >&2
	base+="$b "; untr+="$u "; trk+="$t "; fb+="$c "
	r_d+="$(echo "$u / $b" | bc -l) "; r_e+="$(echo "$t / $b" | bc -l) "; r_g+="$(echo "$c / $b" | bc -l) "
done

f_off=; f_on=; r_f=
for i in $(seq 1 "$FIO_PAIRS"); do
	echo "netio fio pair $i/$FIO_PAIRS (${FIO_SECS} s per run)" >&2
	if [ $((i % 2)) -eq 1 ]; then
		a=$(fio_iops)
		start_tracerd bench-netio >/dev/null || exit 1
		b=$(fio_iops)
		stop_tracerd
	else
		start_tracerd bench-netio >/dev/null || exit 1
		b=$(fio_iops)
		stop_tracerd
		a=$(fio_iops)
	fi
	echo "  IOPS stopped $a running $b" >&2
	f_off+="$a "; f_on+="$b "; r_f+="$(echo "$a / $b" | bc -l) " # time per I/O
done

# the programs' own time, and tracerd's, during one stream of each kind
# and one fio run: the share of the workload's time they take is what
# the ratios above should show on a quiet machine (the ratios' spread on
# a shared VM is larger than the targets)
prog_ns() {
	bpftool -j prog show | python3 -c '
import json, sys
print(sum(p.get("run_time_ns", 0) for p in json.load(sys.stdin) if p.get("name", "").startswith("tracer")))'
}
tracerd_ticks() { awk '{print $14 + $15}' "/proc/$TRACERD_PID/stat"; }
hz=$(getconf CLK_TCK)
start_tracerd bench-netio >/dev/null || exit 1
sysctl -qw kernel.bpf_stats_enabled=1
cost=()
fio_run() { timeit fio_iops; }
for kind in stream tracked_stream fio_run; do
	p0=$(prog_ns); c0=$(tracerd_ticks)
	w=$($kind)
	p1=$(prog_ns); c1=$(tracerd_ticks)
	cost+=("$(echo "$p1 $p0 $c1 $c0 $w $hz" | awk '{bpf = ($1 - $2) / 1e6; td = ($3 - $4) * 1000 / $6;
		printf "programs %.1f ms + tracerd %.0f ms in %.3f s (%.2f%%)", bpf, td, $5, (bpf + td) / ($5 * 10)}')")
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"
stop_tracerd

echo
echo "network and block I/O: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $PAIRS stream pairs, $FIO_PAIRS fio pairs of ${FIO_SECS} s"
echo
row "measure" "stopped" "running" "ratio (min-max)" "target"
row "----------------------------------------------" "----------" "----------" "--------------------" "--------"
ratio_col() { set -- $(echo "$1" | tr ' ' '\n' | grep . | spread); echo "$1 ($2-$3)"; }
row "(d) untracked TCP 2 GiB loopback (s)" "$(med "$base")" "$(med "$untr")" "$(ratio_col "$r_d")" "<= 1.02"
row "(e) the same stream, tracked job (s)" "$(med "$base")" "$(med "$trk")" "$(ratio_col "$r_e")" "<= 1.05"
row "(f) untracked 4K rand direct read QD1 (IOPS)" "$(printf %.0f "$(med "$f_off")")" "$(printf %.0f "$(med "$f_on")")" "$(ratio_col "$r_f")" "<= 1.02"
row "(g) tracked stream, TCP totals at close (s)" "$(med "$base")" "$(med "$fb")" "$(ratio_col "$r_g")" "(none)"
echo
echo "own cost, untracked stream: ${cost[0]}"
echo "own cost, tracked stream:   ${cost[1]}"
echo "own cost, untracked fio:    ${cost[2]}"
