#!/bin/bash
# run.sh BUILD - network and block I/O per tool on the real kernel: a
# renamed sender and receiver exchange exactly 64 MiB over TCP and 8 MiB
# over UDP on 127.0.0.1 (each tool's bytes within 1%, connection counts
# exact); an untracked pair moving 256 MiB meanwhile leaves nothing in the
# job; a Unix-socket exchange counts as Unix, not network; dd oflag=direct
# writes 128 MiB to a file on a block device (write bytes within 2%, the
# device named, latency percentiles); a buffered write then `sync FILE`
# from another process: the block writes are the process that forced them.
# TCP remote endpoints: one tool connecting to 3 listeners (one twice)
# counts 3.  network_bound: a receiver reading 64 MiB from a throttled
# sender is flagged, a CPU burner is not.  A process outliving its job
# with an open socket: its bytes until the job's end are in the summary,
# which is written while it still runs.  Close-time fallback: a second
# tracerd with test_no_sock_length=true counts TCP bytes from the
# connection totals at close (within 1%), and `tracer status` says so;
# the summary and `tracer status` list what that mode does not count, and
# a received connection reset before anybody read it is still counted.
# Across a SIGKILL and restart of tracerd (resume), a job's TCP and
# direct I/O bytes are whole and the lost endpoint table is marked.
# Needs root (tracerd).  Loopback only, ports 18700-18729.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-netio.XXXXXX)
. "$TOP/tests/lib.sh"
DISKDIR=
BG_PIDS=()

OUT_PIDS=
cleanup() {
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for p in $OUT_PIDS; do kill -KILL "$p" 2>/dev/null; done
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
for t in nsender nreceiver usender ureceiver bgsender bgreceiver fanout fanrecv \
	slowsend slowrecv osender oreceiver rsender rreceiver; do
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

start_tracerd netio -o advice_min_runtime_s=1 || exit 1
check "tracer status says network bytes are counted per call" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q '^network:  per call'"
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

echo "== TCP remote endpoints: one tool, 3 listeners, one of them twice"
cat >"$TMP/fan.sh" <<JOB
set -e
B=$TMP/bin
\$B/fanrecv tcp-recv 18710 $TMP/fan.18710 2 >$TMP/fan1.got & a=\$!
\$B/fanrecv tcp-recv 18711 $TMP/fan.18711 >$TMP/fan2.got & b=\$!
\$B/fanrecv tcp-recv 18712 $TMP/fan.18712 >$TMP/fan3.got & c=\$!
\$B/fanout tcp-fanout 18710,18711,18712,18710 $MiB $TMP/fan
wait \$a \$b \$c
JOB
check "the fan-out job ran" trun "$TMP/fan.run" -- /bin/sh "$TMP/fan.sh"
wait_until 30 "the fan-out job's summary" summary_of_job "$TMP/fan.run"
check "the summary says how the network was counted: per_call, nothing not counted" test \
	"$(field "$TMP/fan.run" "(s['net_counting'], s['net_not_counted'])")" = "('per_call', [])"
check "tracer status: network_not_counted none" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q '^network_not_counted: none$'"
check "fanout: 4 connects to 3 distinct endpoints, not capped" test \
	"$(field "$TMP/fan.run" '[tool("fanout")["net"][k] for k in ("tcp_connects", "tcp_remote_endpoints", "tcp_remote_endpoints_capped")]')" = "[4, 3, False]"
check "fanrecv (3 processes): 4 accepts from 4 distinct client ports" test \
	"$(field "$TMP/fan.run" '[tool("fanrecv")["net"][k] for k in ("tcp_accepts", "tcp_remote_endpoints")]')" = "[4, 4]"
check "job: 7 distinct remote endpoints (3 listeners + 4 client ports)" test \
	"$(field "$TMP/fan.run" "s['totals']['net']['tcp_remote_endpoints']")" = 7
check "per process: the fan-out process counts 3" test \
	"$(field "$TMP/fan.run" "[p['net']['tcp_remote_endpoints'] for p in s['process_tree'] if p['tool'] == 'fanout']")" = "[3]"
check "tracer show prints the job's 7 TCP remote endpoints" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK -o file=$TRACERD_FILE show $(cat "$TMP/fan.run") | grep -q 'TCP remote endpoints 7$'"

echo "== network_bound: a receiver of a throttled sender; a CPU burner"
# the sender pauses 60 ms after each MiB: 64 MiB take about 4 s, during
# which the receiver waits in read() off the CPU
cat >"$TMP/slow.sh" <<JOB
set -e
B=$TMP/bin
\$B/slowrecv tcp-recv 18713 $TMP/r5 >$TMP/slow.got & r=\$!
\$B/slowsend tcp-send 18713 $((64 * MiB)) $TMP/r5 $MiB 60
wait \$r
JOB
check "the throttled transfer job ran" trun "$TMP/slow.run" -- /bin/sh "$TMP/slow.sh"
check "slowrecv got 64 MiB" test "$(cat "$TMP/slow.got")" = $((64 * MiB))
wait_until 30 "the throttled job's summary" summary_of_job "$TMP/slow.run"
check "slowrecv is flagged network_bound, with its bytes in the evidence" test \
	"$(field "$TMP/slow.run" "[f['evidence']['network_bytes'] >= 64 * $MiB for f in s['flags'] if f['id'] == 'network_bound' and f.get('tool') == 'slowrecv']")" = "[True]"
echo "    $(field "$TMP/slow.run" "next(f['message'] for f in s['flags'] if f['id'] == 'network_bound' and f.get('tool') == 'slowrecv')")"
check "the CPU burner job ran" trun "$TMP/burn.run" -- python3 -c \
	'import time
t = time.time()
while time.time() - t < 2: pass'
wait_until 30 "the burner's summary" summary_of_job "$TMP/burn.run"
check "the CPU burner is not network_bound (flags: $(field "$TMP/burn.run" "[f['id'] for f in s['flags']]"))" test \
	"$(field "$TMP/burn.run" "[f for f in s['flags'] if f['id'] == 'network_bound']")" = "[]"

echo "== a process outliving its job with an open socket"
# osender sends 4 MiB, then holds its connection for 60 s; the job's shell
# leaves once the 4 MiB are written (wchar), both peers outlive the job
# (their output away from the job's, which the test waits on)
cat >"$TMP/out.sh" <<JOB
B=$TMP/bin
\$B/oreceiver tcp-recv 18714 $TMP/r6 >/dev/null 2>&1 </dev/null & echo \$! >$TMP/oreceiver.pid
\$B/osender tcp-send 18714 $((4 * MiB)) $TMP/r6 $((4 * MiB)) 60000 >/dev/null 2>&1 </dev/null & s=\$!
echo \$s >$TMP/osender.pid
until [ "\$(awk '/^wchar/ {print \$2}' /proc/\$s/io)" -ge $((4 * MiB)) ]; do sleep 0.05; done
JOB
check "the outliving job ran" trun "$TMP/out.run" -- /bin/sh "$TMP/out.sh"
OUT_PIDS="$(cat "$TMP/osender.pid" "$TMP/oreceiver.pid" 2>/dev/null)"
wait_until 30 "the outliving job's summary" summary_of_job "$TMP/out.run"
check "the summary is written while osender still runs (not held)" kill -0 $(cat "$TMP/osender.pid")
check "osender is marked as outliving the job" test \
	"$(field "$TMP/out.run" "[p.get('outlived', False) for p in s['process_tree'] if p['tool'] == 'osender']")" = "[True]"
check_within "osender: its 4 MiB sent before the job's end are counted" \
	"$(field "$TMP/out.run" 'tool("osender")["net"]["tcp_sent_bytes"]')" $((4 * MiB)) 1
for p in $OUT_PIDS; do kill -KILL "$p" 2>/dev/null; done

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

echo "== counts across a SIGKILL and restart of tracerd (resume)"
# the job moves 48 MiB over TCP (1 MiB per 100 ms) and dd writes 64 MiB
# with O_DIRECT from a FIFO this script feeds: 32 MiB, then tracerd is
# killed (once its journal has been written since) and restarted, then
# 32 MiB more.  The kernel's counters and programs are pinned: the tools'
# bytes are whole; the device table comes from the journal and the
# records kept in the ring buffer (less those read after the last journal
# write before the SIGKILL); the TCP endpoints seen before the
# restart are lost, and the summary says so.
if [ -z "$DISKDIR" ] || [ ! -d "$DISKDIR" ]; then
	fail "no directory on a block device for the restart test"
else
	mkfifo "$TMP/dd.fifo"
	cat >"$TMP/rs.sh" <<JOB
set -e
B=$TMP/bin
\$B/rreceiver tcp-recv 18715 $TMP/r8 >$TMP/rs.got & r=\$!
\$B/rsender tcp-send 18715 $((48 * MiB)) $TMP/r8 $MiB 100 & s=\$!
dd if=$TMP/dd.fifo of=$DISKDIR/rs bs=1M count=64 iflag=fullblock oflag=direct status=none
wait \$s \$r
JOB
	trun "$TMP/rs.run" -- /bin/sh "$TMP/rs.sh" >"$TMP/rs.out" 2>&1 &
	JOBPID=$!
	BG_PIDS+=("$JOBPID")
	wait_until 30 "the restart job to register" test -s "$TMP/rs.run"
	exec 7>"$TMP/dd.fifo"
	head -c $((32 * MiB)) /dev/zero >&7
	touch "$TMP/rs.half"
	JOURNAL=$(ls "$TMP"/tracerd-state/journal-*.json)
	wait_until 10 "the journal written after the first 32 MiB" test "$JOURNAL" -nt "$TMP/rs.half"
	check "the TCP sender still runs at the SIGKILL" not proc_gone "$(pgrep -n -x rsender)"
	kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
	start_tracerd netio -o advice_min_runtime_s=1 || exit 1
	head -c $((32 * MiB)) /dev/zero >&7
	exec 7>&-
	wait "$JOBPID"
	check "the restart job ran to the end" test "$?" = 0
	check "rreceiver got 48 MiB" test "$(cat "$TMP/rs.got")" = $((48 * MiB))
	check "dd wrote 64 MiB" test "$(stat -c %s "$DISKDIR/rs")" = $((64 * MiB))
	rm -f "$DISKDIR/rs"
	wait_until 30 "the restart job's summary" summary_of_job "$TMP/rs.run"
	check "the job is marked incomplete, with one gap" test \
		"$(field "$TMP/rs.run" "(s['incomplete'], len(s['gaps']))")" = "(True, 1)"
	check_within "across the restart: rsender TCP bytes sent" \
		"$(field "$TMP/rs.run" 'tool("rsender")["net"]["tcp_sent_bytes"]')" $((48 * MiB)) 1
	check_within "across the restart: rreceiver TCP bytes received" \
		"$(field "$TMP/rs.run" 'tool("rreceiver")["net"]["tcp_recv_bytes"]')" $((48 * MiB)) 1
	check "across the restart: connections exact (rsender 1 connect, rreceiver 1 accept)" test \
		"$(field "$TMP/rs.run" '(tool("rsender")["net"]["tcp_connects"], tool("rreceiver")["net"]["tcp_accepts"])')" = "(1, 1)"
	check_within "across the restart: dd block write bytes" \
		"$(field "$TMP/rs.run" 'tool("dd")["block"]["write_bytes"]')" $((64 * MiB)) 2
	# the device table is tracerd's, kept by the journal once a second:
	# the records it read after its last journal write are lost with it
	# (docs/configuration.md), at most the end of the first half here
	check "across the restart: the device table's write bytes ($DEVNAME) 90% to 102% of 64 MiB" test \
		"$(field "$TMP/rs.run" "0.90 * 64 * $MiB <= sum(d['write_bytes'] for d in s['block_devices'] if d['device'] == '$DEVNAME') <= 1.02 * 64 * $MiB")" = True
	check "the endpoints seen before the restart are lost: marked partial (job and tools)" test \
		"$(field "$TMP/rs.run" "(s['totals']['net'].get('tcp_remote_endpoints_partial'), tool('rsender')['net'].get('tcp_remote_endpoints_partial'))")" = "(True, True)"
	check "no process outlived the job, no underflow" test \
		"$(field "$TMP/rs.run" "s['processes']['outlived']")" = 0
fi

check "tracer show prints NET and DISK columns" sh -c \
	"tr() { $BUILD/tracer -o socket=$TRACERD_SOCK -o file=$TRACERD_FILE \"\$@\"; }; tr show --wide $(cat "$TMP/net.run") | grep -q ' NET .* DISK ' && tr show $(cat "$TMP/net.run") | grep -q '^Network  sent'"

echo "== close-time fallback: TCP totals at close (test_no_sock_length)"
stop_tracerd
start_tracerd netfb -o test_no_sock_length=true || exit 1
check "tracer status says TCP bytes are counted at close" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q '^network:  TCP totals at close'"
check "the byte programs are not attached in this mode" sh -c \
	"! $BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q tracer_sock_send"
cat >"$TMP/fb.sh" <<JOB
set -e
B=$TMP/bin
\$B/nreceiver tcp-recv 18720 $TMP/r7 >$TMP/fb.got & r=\$!
\$B/nsender tcp-send 18720 $((64 * MiB)) $TMP/r7
wait \$r
JOB
check "the fallback TCP job ran" trun "$TMP/fb.run" -- /bin/sh "$TMP/fb.sh"
check "nreceiver got 64 MiB" test "$(cat "$TMP/fb.got")" = $((64 * MiB))
wait_until 30 "the fallback job's summary" summary_of_job "$TMP/fb.run"
check "the fallback summary says so: net_counting tcp_close_totals" test \
	"$(field "$TMP/fb.run" "s['net_counting']")" = tcp_close_totals
check_within "fallback: nsender TCP bytes sent (acked + queued at close)" \
	"$(field "$TMP/fb.run" 'tool("nsender")["net"]["tcp_sent_bytes"]')" $((64 * MiB)) 1
check_within "fallback: nreceiver TCP bytes received" \
	"$(field "$TMP/fb.run" 'tool("nreceiver")["net"]["tcp_recv_bytes"]')" $((64 * MiB)) 1
check "fallback: connections exact (nsender 1 connect, nreceiver 1 accept), 1 endpoint each" test \
	"$(field "$TMP/fb.run" '[tool(n)["net"][k] for n in ("nsender", "nreceiver") for k in ("tcp_connects", "tcp_accepts", "tcp_remote_endpoints")]')" = "[1, 0, 1, 0, 1, 1]"
check "fallback: no bytes the wrong way round (nsender received, nreceiver sent < 1 KiB)" test \
	"$(field "$TMP/fb.run" 'tool("nsender")["net"]["tcp_recv_bytes"] < 1024 and tool("nreceiver")["net"]["tcp_sent_bytes"] < 1024')" = True

check "fallback: the summary lists what it did not count" test \
	"$(field "$TMP/fb.run" "s['net_not_counted']")" = "['tcp_open_connections', 'udp', 'unix', 'other']"
check "tracer status: network_not_counted in the close-time mode" sh -c \
	"$BUILD/tracer -o socket=$TRACERD_SOCK status | grep -q '^network_not_counted: tcp_open_connections udp unix other$'"

echo "== close-time fallback: a received connection reset before anybody read it"
# the client sends 64 KiB (what the unaccepted connection's receive
# buffer takes), waits until all of it is acknowledged, then
# resets the connection (SO_LINGER 0); the listener never accepts it and
# exits: the connection is the listener's (its listening socket's owner)
cat >"$TMP/rst.py" <<'PY'
import os, socket, struct, sys, time, fcntl, termios
port, ready, done = int(sys.argv[2]), sys.argv[3], sys.argv[4]
if sys.argv[1] == "listen":
    l = socket.socket()
    l.bind(("127.0.0.1", port))
    l.listen(4)
    open(ready, "w").close()
    t = time.time() + 30
    while not os.path.exists(done) and time.time() < t:
        time.sleep(0.02)
    l.close()
    sys.exit(0 if os.path.exists(done) else 1)
t = time.time() + 30
while not os.path.exists(ready) and time.time() < t:
    time.sleep(0.02)
c = socket.create_connection(("127.0.0.1", port))
c.sendall(b"x" * (64 << 10))
t = time.time() + 30
while struct.unpack("i", fcntl.ioctl(c.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0] and time.time() < t:
    time.sleep(0.02)
c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
c.close()
open(done, "w").close()
PY
cat >"$TMP/rst.sh" <<JOB
set -e
python3 $TMP/rst.py listen 18721 $TMP/rst.ready $TMP/rst.done & l=\$!
python3 $TMP/rst.py connect 18721 $TMP/rst.ready $TMP/rst.done
wait \$l
JOB
check "the reset connection job ran" trun "$TMP/rst.run" -- /bin/sh "$TMP/rst.sh"
wait_until 30 "the reset job's summary" summary_of_job "$TMP/rst.run"
# (the sender's bytes_acked may count 1 more: see docs/schema.md)
check "the reset connection: 1 connect, 1 accept, 64 KiB received, 64 KiB (+1) sent: $(field "$TMP/rst.run" "s['totals']['net']")" test \
	"$(field "$TMP/rst.run" "[s['totals']['net'][k] for k in ('tcp_connects', 'tcp_accepts', 'tcp_recv_bytes')] + [65536 <= s['totals']['net']['tcp_sent_bytes'] <= 65537]")" = "[1, 1, 65536, True]"

validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 10 $(summary_files "$TMP")
finish
