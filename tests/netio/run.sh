#!/bin/bash
# run.sh BUILD - network and block I/O per tool on the real kernel: a
# renamed sender and receiver exchange exactly 64 MiB over TCP and 8 MiB
# over UDP on 127.0.0.1 (each tool's bytes within 1%, connection counts
# exact); an untracked pair moving 256 MiB meanwhile leaves nothing in the
# job; a Unix-socket exchange counts as Unix, not network; dd oflag=direct
# writes 128 MiB to a file on a block device (write bytes within 2%, the
# device named, latency percentiles); a buffered write then `sync FILE`
# from another process: the block writes are the process that forced them.
# Needs root (tracerd).  Loopback only, ports 18700-18709.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-netio.XXXXXX)
. "$TOP/tests/lib.sh"
DISKDIR=
BG_PIDS=()

cleanup() {
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	stop_tracerd
	rm -rf "$TMP"
	[ -n "$DISKDIR" ] && rm -rf "$DISKDIR"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tests/helpers/netpeer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
command -v findmnt >/dev/null || { echo "FAIL: findmnt missing (apt-get install util-linux)"; exit 1; }

mkdir -p "$TMP/bin"
for t in nsender nreceiver usender ureceiver bgsender bgreceiver; do
	cp "$BUILD/tests/helpers/netpeer" "$TMP/bin/$t"
done
MiB=1048576

# field JOBFILE PYTHON-EXPR: evaluate EXPR with `s` = the job's summary,
# `tool(name)` = its tool entry; prints the value
field() {
	python3 - "$TRACERD_FILE" "$(cat "$1")" "$2" <<'PY'
import json, sys
s = next(json.loads(l) for l in open(sys.argv[1]) if l.strip() and json.loads(l).get("job") == sys.argv[2])
def tool(name):
    return next(t for t in s["tools"] if t["tool"] == name)
print(eval(sys.argv[3]))
PY
}
# within GOT WANT PERCENT
within() { python3 -c "import sys; g,w,p=map(float,sys.argv[1:]); sys.exit(0 if abs(g-w) <= w*p/100 else 1)" "$1" "$2" "$3"; }
check_within() { local d=$1 g=$2 w=$3 p=$4; check "$d (got $g, want $w ±$p%)" within "$g" "$w" "$p"; }

start_tracerd netio || exit 1
check "tracer status lists the socket and block programs" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q tracer_sock_send && $BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q tracer_blk_start"

echo "== TCP 64 MiB and UDP 8 MiB between two tools, an untracked 256 MiB meanwhile"
cat >"$TMP/net.sh" <<JOB
set -e
B=$TMP/bin
\$B/nreceiver tcp-recv 18700 $TMP/r1 >$TMP/tcp.got & r=\$!
\$B/nsender tcp-send 18700 $((64 * MiB)) $TMP/r1
wait \$r
\$B/nreceiver udp-recv 18701 $((8 * MiB)) $TMP/r2 >$TMP/udp.got & r=\$!
\$B/nsender udp-send 18701 $((8 * MiB)) $TMP/r2
wait \$r
touch $TMP/job.net.done
# stay until the untracked transfer is over
while [ ! -e $TMP/bg.done ]; do sleep 0.05; done
JOB
trun "$TMP/net.run" -- /bin/sh "$TMP/net.sh" >"$TMP/net.out" 2>&1 &
JOBPID=$!
BG_PIDS+=("$JOBPID")
wait_until 30 "the job to register" test -s "$TMP/net.run"
# the untracked pair, started by this script (not by the job)
"$TMP/bin/bgreceiver" tcp-recv 18702 "$TMP/r3" >"$TMP/bg.got" &
BGR=$!
BG_PIDS+=("$BGR")
"$TMP/bin/bgsender" tcp-send 18702 $((256 * MiB)) "$TMP/r3"
wait "$BGR"
touch "$TMP/bg.done"
wait "$JOBPID"
check "the job ran to the end" test "$?" = 0 -a -e "$TMP/job.net.done"
check "the receivers got every byte (TCP, UDP, untracked)" test \
	"$(cat "$TMP/tcp.got") $(cat "$TMP/udp.got") $(cat "$TMP/bg.got")" = "$((64 * MiB)) $((8 * MiB)) $((256 * MiB))"
wait_until 30 "the job's summary" summary_of_job "$TMP/net.run"
NS='tool("nsender")["net"]'
NR='tool("nreceiver")["net"]'
check_within "nsender: TCP bytes sent" "$(field "$TMP/net.run" "$NS['tcp_sent_bytes']")" $((64 * MiB)) 1
check_within "nreceiver: TCP bytes received" "$(field "$TMP/net.run" "$NR['tcp_recv_bytes']")" $((64 * MiB)) 1
check_within "nsender: UDP bytes sent" "$(field "$TMP/net.run" "$NS['udp_sent_bytes']")" $((8 * MiB)) 1
check_within "nreceiver: UDP bytes received" "$(field "$TMP/net.run" "$NR['udp_recv_bytes']")" $((8 * MiB)) 1
# the protocol's own bytes: one 1-byte UDP ack per 8 datagrams of 8 KiB
check "UDP acks: 128 bytes each way" test \
	"$(field "$TMP/net.run" "($NR['udp_sent_bytes'], $NS['udp_recv_bytes'])")" = "(128, 128)"
check "connections exact: nsender 1 connect 0 accepts, nreceiver 0 connects 1 accept" test \
	"$(field "$TMP/net.run" "($NS['tcp_connects'], $NS['tcp_accepts'], $NR['tcp_connects'], $NR['tcp_accepts'])")" = "(1, 0, 0, 1)"
check_within "job totals: TCP sent is the job's 64 MiB only (untracked 256 MiB not in it)" \
	"$(field "$TMP/net.run" "s['totals']['net']['tcp_sent_bytes']")" $((64 * MiB)) 1
check_within "job totals: TCP received is the job's 64 MiB only" \
	"$(field "$TMP/net.run" "s['totals']['net']['tcp_recv_bytes']")" $((64 * MiB)) 1
check "no tool of the untracked pair in the job" test \
	"$(field "$TMP/net.run" "[t['tool'] for t in s['tools'] if t['tool'].startswith('bg')]")" = "[]"

echo "== a Unix-socket exchange between two tools"
cat >"$TMP/unix.sh" <<JOB
set -e
B=$TMP/bin
\$B/ureceiver unix-recv $TMP/u.sock $TMP/r4 >$TMP/unix.got & r=\$!
\$B/usender unix-send $TMP/u.sock $((16 * MiB)) $TMP/r4
wait \$r
JOB
check "the Unix job ran" trun "$TMP/unix.run" -- /bin/sh "$TMP/unix.sh"
wait_until 30 "the Unix job's summary" summary_of_job "$TMP/unix.run"
check "usender: 16 MiB sent as Unix" test "$(field "$TMP/unix.run" 'tool("usender")["net"]["unix_sent_bytes"]')" = $((16 * MiB))
check "ureceiver: 16 MiB received as Unix" test "$(field "$TMP/unix.run" 'tool("ureceiver")["net"]["unix_recv_bytes"]')" = $((16 * MiB))
check "Unix traffic is not network: sent/received and TCP/UDP are 0 for both tools" test \
	"$(field "$TMP/unix.run" '[tool(n)["net"][k] for n in ("usender", "ureceiver") for k in ("sent_bytes", "recv_bytes", "tcp_sent_bytes", "udp_recv_bytes", "tcp_connects")]')" = "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"

echo "== block I/O: dd oflag=direct 128 MiB to a block device"
DISKDIR=$(mktemp -d /var/tmp/tracer-netio.XXXXXX)
SRC=$(findmnt -n -o SOURCE -T "$DISKDIR")
FST=$(findmnt -n -o FSTYPE -T "$DISKDIR")
if [ "${SRC#/dev/}" = "$SRC" ] || [ "$FST" = tmpfs ]; then
	fail "$DISKDIR is not on a block device ($SRC, $FST): the block tests need one"
else
	pass "test directory $DISKDIR is on $SRC ($FST)"
	DEVNAME=$(basename "$(readlink -f "$SRC")")
	check "dd oflag=direct job ran" trun "$TMP/dd.run" -- dd if=/dev/zero of="$DISKDIR/direct" bs=1M count=128 oflag=direct status=none
	wait_until 30 "the dd job's summary" summary_of_job "$TMP/dd.run"
	check_within "dd: block write bytes" "$(field "$TMP/dd.run" 'tool("dd")["block"]["write_bytes"]')" $((128 * MiB)) 2
	check "dd: at least 128 block requests (1 MiB each at most)" test "$(field "$TMP/dd.run" 'tool("dd")["block"]["requests"]')" -ge 128
	check "the job's device is named $DEVNAME with its write bytes" test \
		"$(field "$TMP/dd.run" "[d['device'] for d in s['block_devices'] if d['write_bytes'] >= 128 * $MiB * 0.98]")" = "['$DEVNAME']"
	check "latency percentiles present: 0 < p50 <= p99 <= max" test \
		"$(field "$TMP/dd.run" "all(0 < d['latency_p50_s'] <= d['latency_p99_s'] <= d['latency_max_s'] for d in s['block_devices'] if d['requests'])")" = True
	rm -f "$DISKDIR/direct"

	echo "== block I/O: a buffered write, then sync FILE (fsync) from another process"
	# documented rule: a block request is the process's that issued it.
	# dd only dirties the page cache; `sync FILE` (fsync) writes the dirty
	# pages back in its own context, so they are sync's.  Pages the kernel's
	# flusher threads write first (a busy machine) are nobody's.
	cat >"$TMP/buf.sh" <<JOB
set -e
dd if=/dev/zero of=$DISKDIR/buffered bs=1M count=64 status=none
sync $DISKDIR/buffered
JOB
	check "buffered write + sync FILE job ran" trun "$TMP/buf.run" -- /bin/sh "$TMP/buf.sh"
	wait_until 30 "the buffered job's summary" summary_of_job "$TMP/buf.run"
	check "dd (buffered): its 64 MiB are not its block writes (< 10%)" test \
		"$(field "$TMP/buf.run" 'tool("dd")["block"]["write_bytes"] < 64 * 2**20 // 10')" = True
	check "sync FILE: the writeback it forced is its block writes (50% to 105% of 64 MiB)" test \
		"$(field "$TMP/buf.run" '64 * 2**20 // 2 <= tool("sync")["block"]["write_bytes"] <= 64 * 2**20 * 1.05')" = True
	check "the data reached the disk (file size 64 MiB after sync)" test "$(stat -c %s "$DISKDIR/buffered")" = $((64 * MiB))
fi

check "tracer show prints NET and DISK columns" sh -c \
	"tr() { $BUILD/tracer -o socket=$TRACERD_SOCK -o file=$TRACERD_FILE \"\$@\"; }; tr show --wide $(cat "$TMP/net.run") | grep -q ' NET .* DISK ' && tr show $(cat "$TMP/net.run") | grep -q '^Network  sent'"
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 4 $(summary_files "$TMP")
finish
