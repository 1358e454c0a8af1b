#!/bin/bash
# netio.sh BUILD - cost of the socket and block I/O programs (part `netio`
# of bench/run.sh): an untracked loopback TCP stream of 2 GiB with tracerd
# stopped and running, the same stream inside a tracked job, and untracked
# 4 KiB random direct reads at queue depth 1 (fio, FIO_SECS per run, 5 by
# default) with tracerd stopped and running; and the tracked stream with
# tracerd counting TCP totals at close (test_no_sock_length: the mode of
# kernels without sock_send_length).  Repetitions alternate
# stopped/running; medians.  Loopback only (port 18750); the fio file is
# in a temp dir under /var/tmp (a block device, not tmpfs).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-bench-netio.XXXXXX)
DISK=$(mktemp -d /var/tmp/tracer-bench-netio.XXXXXX)
REPS=${REPS:-5}
FIO_SECS=${FIO_SECS:-5}
BYTES=$((2 * 1024 * 1024 * 1024))
. "$TOP/tests/lib.sh"
trap 'stop_tracerd; rm -rf "$TMP" "$DISK"' EXIT
need_root
command -v fio >/dev/null || { echo "FAIL: fio is not installed (apt-get install fio)"; exit 1; }
row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { echo "scale=4; $2 / $1" | bc -l; }

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
fio_iops() {
	fio --name=rand --filename="$DISK/fio.dat" --size=256M --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --iodepth=1 --runtime="$FIO_SECS" --time_based \
		--output-format=json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}
# lay the file out once, outside the measure
fio --name=prep --filename="$DISK/fio.dat" --size=256M --rw=write --bs=1M --direct=1 \
	--output-format=terse >/dev/null 2>&1 || { echo "FAIL: fio could not write $DISK/fio.dat"; exit 1; }

base=; untr=; trk=; fio_off=; fio_on=; fb=
for rep in $(seq 1 "$REPS"); do
	echo "netio repetition $rep/$REPS" >&2
	base+="$(timeit sh "$TMP/stream.sh") "
	fio_off+="$(fio_iops) "
	start_tracerd bench-netio >/dev/null || exit 1
	untr+="$(timeit sh "$TMP/stream.sh") "
	trk+="$(timeit tr_cli run -- sh "$TMP/stream.sh") "
	fio_on+="$(fio_iops) "
	stop_tracerd
	start_tracerd bench-netio-close -o test_no_sock_length=true >/dev/null || exit 1
	fb+="$(timeit tr_cli run -- sh "$TMP/stream.sh") "
	stop_tracerd
done
m() { echo "$1" | tr ' ' '\n' | grep . | median; }
b=$(m "$base"); u=$(m "$untr"); t=$(m "$trk"); f0=$(m "$fio_off"); f1=$(m "$fio_on"); c=$(m "$fb")
row "(d) untracked TCP 2 GiB loopback (s)" "$(printf %.3f "$b")" "$(printf %.3f "$u")" "$(printf %.3f "$(ratio "$b" "$u")")" "<= 1.02"
row "(e) the same stream, tracked job (s)" "$(printf %.3f "$b")" "$(printf %.3f "$t")" "$(printf %.3f "$(ratio "$b" "$t")")" "<= 1.05"
# time per I/O: the inverse of IOPS, so that the ratio reads like the others
row "(f) untracked 4K rand direct read QD1 (IOPS)" "$(printf %.0f "$f0")" "$(printf %.0f "$f1")" "$(printf %.3f "$(ratio "$f1" "$f0")")" "<= 1.02"
row "(g) tracked stream, TCP totals at close (s)" "$(printf %.3f "$b")" "$(printf %.3f "$c")" "$(printf %.3f "$(ratio "$b" "$c")")" "(none)"
