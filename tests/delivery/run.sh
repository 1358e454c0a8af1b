#!/bin/bash
# run.sh BUILD - delivery of summaries: tracerd's spool and its sinks
# against real servers on loopback, all started and stopped by pid:
# Debian's clickhouse-server (data in a temporary directory), an HTTP
# collector (httpd.py: failing, then accepting; or hanging), a spool on a
# small full tmpfs.  Needs root (BPF, mount).
#
# run.sh BUILD --threads: what ThreadSanitizer has to look at, for the
# TSan build: every case that runs tracerd (its sink, spool and loop
# threads), with 50 jobs for ClickHouse where there are 200 and 20 + 20
# where there are 50 + 50 (the same batches, retries and restarts, fewer
# of them); left to the plain and ASan runs are what runs no thread of
# tracerd: `tracer datalake migrate` a second time, the 7 queries of
# queries.sql (clickhouse-client alone) and tracer-wrap --standalone
# (single-threaded).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
THREADS_ONLY=
[ "${2:-}" = --threads ] && THREADS_ONLY=1
# the jobs of the first two cases
N_CH=200 N_DOWN=50
[ -n "$THREADS_ONLY" ] && N_CH=50 N_DOWN=20
TMP=$(mktemp -d /tmp/tracer-dlv.XXXXXX)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
CHECK="$TOP/tests/delivery/check.py"
# this suite's loopback ports
CH_TCP=18101 CH_HTTP=18124 HTTP_BASE=18150
HTTPD_PID=
PROBE_PID=
SMALL=

stop_httpd() {
	[ -n "$HTTPD_PID" ] || return 0
	kill -TERM "$HTTPD_PID" 2>/dev/null
	wait "$HTTPD_PID" 2>/dev/null
	HTTPD_PID=
}
cleanup() {
	if [ -n "$PROBE_PID" ]; then touch "$TMP/probe.stop"; kill -TERM "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; fi
	stop_tracerd
	stop_httpd
	ch_stop
	[ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
python3 -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema is not installed"; exit 1; }
need_commands python3 mount
need_built tracerd tracer tracer-wrap

# start_httpd MODE PORT LOG [FAILS]: the collector, up once it listens
start_httpd() {
	python3 "$TOP/tests/delivery/httpd.py" "$@" >"$TMP/httpd.out" 2>&1 &
	HTTPD_PID=$!
	wait_until 30 "the HTTP collector on port $2" \
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $2), 1)"
}


# jobs N PIPELINE: N short jobs of a few processes, with varied names
# (registrations may wait 2 s here, not the default 200 ms: this suite is
# about delivery; a registration given up would be a job never recorded)
jobs() {
	local n=$1 p=$2
	for i in $(seq 1 "$n"); do
		tr_cli -o client_timeout_ms=2000 run --name "task-$((i % 5))" --pipeline "$p" --job-file "$TMP/$p.$i" -- \
			/bin/sh -c '/bin/true; /bin/echo x >/dev/null' >/dev/null ||
			{ fail "job $i of $p did not run"; return 1; }
	done
}

ch_jobs_final() { [ "$(chq -q "SELECT count() FROM tracer.jobs FINAL WHERE pipeline = '$1'")" = "$2" ]; }
spool_files() { find "$1" -name '*.rec' | wc -l; }

echo "== ClickHouse 18.16: schema, $N_CH jobs, queries"
ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP"
check "the ClickHouse server is Debian's 18.16" ch_is_debian_1816
check "the schema: tracer datalake migrate applies contrib/clickhouse/migrations/" \
	"$BUILD/tracer" -o clickhouse_url="http://127.0.0.1:$CH_HTTP/" datalake migrate --dir "$TOP/contrib/clickhouse/migrations"
[ -n "$THREADS_ONLY" ] || check "and again: nothing to do" \
	sh -c "'$BUILD/tracer' -o clickhouse_url=http://127.0.0.1:$CH_HTTP/ datalake migrate --dir '$TOP/contrib/clickhouse/migrations' | grep -q 'up to date'"
CHOPTS=(-o sinks=file,clickhouse -o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o retry_max_ms=2000)
start_tracerd ch -o spool_dir="$TMP/spool.ch" "${CHOPTS[@]}" || exit 1
t0=$(now_us)
jobs $N_CH p200
wait_until 60 "$N_CH rows in tracer.jobs FINAL" ch_jobs_final p200 $N_CH && t1=$(now_us) &&
	pass "$N_CH jobs -> $N_CH rows in jobs FINAL"
check "jobs, tools, processes and flags rows agree with the $N_CH summaries" \
	python3 "$CHECK" ch-rows "$TRACERD_FILE" "$CH_TCP" p200 $N_CH
check "the $N_CH summaries are valid against docs/summary.schema.json" \
	python3 "$TOP/tests/validate_summary.py" --min $N_CH "$TRACERD_FILE"
# batching: at most one insert per table per second (plus the first)
batches=$(dstat 'sink("clickhouse")["batches"]')
secs=$(( (${t1:-$(now_us)} - t0) / 1000000 + 2 ))
check "batched: $batches inserts for $N_CH summaries in about $secs s (at most one per second)" \
	test "$batches" -le "$secs"
# every query of queries.sql, one at a time, each answering rows
awk -v dir="$TMP" 'BEGIN { n = 1 } /^--/ { next } { q = q $0 "\n" } /^;$/ { print q > (dir "/query." n); n++; q = "" }' \
	"$TOP/contrib/clickhouse/queries.sql"
nq=$(ls "$TMP"/query.* | wc -l)
[ -n "$THREADS_ONLY" ] || check "queries.sql holds its 7 queries" test "$nq" -eq 7
[ -n "$THREADS_ONLY" ] || for f in "$TMP"/query.*; do
	what=$(grep -m1 -o 'SELECT\|FROM tracer\.[a-z]*' "$f" | tail -1)
	check "queries.sql query ${f##*.} ($what) runs and answers rows" \
		sh -c "out=\$(clickhouse-client --port $CH_TCP --multiquery < '$f') && [ -n \"\$out\" ]"
done
stop_tracerd

echo "== ClickHouse down, tracerd killed and restarted: nothing lost, nothing doubled"
# this time as a user with a password, read from a file
echo ch-s3cret >"$TMP/chpw"
chmod 600 "$TMP/chpw"
CHOPTS+=(-o clickhouse_user=tracer_rw -o clickhouse_password_file="$TMP/chpw")
start_tracerd ck -o spool_dir="$TMP/spool.ck" "${CHOPTS[@]}" || exit 1
ch_stop
jobs $N_DOWN pkill
wait_until 30 "the first $N_DOWN summaries in the spool" dtrue "d['spool']['written'] >= $N_DOWN"
kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
check "the spool holds them after SIGKILL" test "$(spool_files "$TMP/spool.ck")" -ge $N_DOWN
start_tracerd ck -o spool_dir="$TMP/spool.ck" "${CHOPTS[@]}" || exit 1
jobs $N_DOWN pkill
wait_until 30 "the next $N_DOWN summaries in the spool" dtrue "d['spool']['written'] >= $N_DOWN"
check "the ClickHouse sink counts its failures while the server is down" \
	dtrue "sink('clickhouse')['failures'] > 0 and sink('clickhouse')['pending'] >= $N_DOWN"
ch_start || exit 1
wait_until 90 "the $((2 * N_DOWN)) jobs in tracer.jobs FINAL once ClickHouse is back" ch_jobs_final pkill $((2 * N_DOWN)) &&
	pass "all $((2 * N_DOWN)) arrived"
check "each once with FINAL, tools and processes consistent" \
	python3 "$CHECK" ch-rows "$TRACERD_FILE" "$CH_TCP" pkill $((2 * N_DOWN))
wait_until 30 "an empty spool" dtrue 'd["spool"]["records"] == 0' &&
	check "no record file left in the spool" test "$(spool_files "$TMP/spool.ck")" -eq 0
stop_tracerd

echo "== HTTP collector answering 500, then 200"
echo "s3cr3t-token" >"$TMP/token"
chmod 600 "$TMP/token"
start_httpd fail-then-ok "$HTTP_BASE" "$TMP/http1.log" 2 || exit 1
start_tracerd http -o spool_dir="$TMP/spool.http" -o sinks=file,http \
	-o http_url="http://127.0.0.1:$HTTP_BASE/ingest" -o http_token_file="$TMP/token" \
	-o retry_max_ms=1000 || exit 1
jobs 10 phttp
wait_until 60 "the 10 summaries accepted by the collector" \
	dtrue 'sink("http")["delivered"] == 10 and sink("http")["pending"] == 0'
check "every summary accepted once, failed batches retried, bearer token and gzip on every request" \
	python3 "$CHECK" http-log "$TMP/http1.log" "$TRACERD_FILE" s3cr3t-token 500
check "the failures are counted" dtrue 'sink("http")["failures"] >= 2'
stop_tracerd
check "no reply body on tracerd's output (only quoted in its error log lines)" \
	sh -c "! grep -v '^tracerd: ' '$TRACERD_LOG' | grep -q REPLY-BODY-MARKER && ! grep -q 'REPLY-BODY-MARKER ok' '$TRACERD_LOG'"
# tracer-wrap standalone: one summary, synchronous, never on the job's
# stdout (single-threaded: not for --threads)
if [ -z "$THREADS_ONLY" ]; then
"$BUILD/tracer-wrap" --standalone -o sinks=http -o http_url="http://127.0.0.1:$HTTP_BASE/ingest" \
	-o http_token_file="$TMP/token" -o rules="$TOP/contrib/rules/tools.rules" -- \
	/bin/echo job-output >"$TMP/wrap.out" 2>"$TMP/wrap.err"
check "tracer-wrap standalone: the job's stdout is its own" sh -c "[ \"\$(cat '$TMP/wrap.out')\" = job-output ]"
check "tracer-wrap standalone: its summary reached the collector" \
	sh -c "tail -n 1 '$TMP/http1.log' | grep -q '\"source\": \"tracer-wrap\"'"
stop_httpd
start_httpd fail-then-ok $((HTTP_BASE + 1)) "$TMP/http2.log" 1000 || exit 1
"$BUILD/tracer-wrap" --standalone -o sinks=http -o http_url="http://127.0.0.1:$((HTTP_BASE + 1))/ingest" \
	-o rules="$TOP/contrib/rules/tools.rules" -- /bin/echo job-output >"$TMP/wrap.out" 2>"$TMP/wrap.err"
check "tracer-wrap standalone, collector failing: stdout still only the job's" \
	sh -c "[ \"\$(cat '$TMP/wrap.out')\" = job-output ]"
check "tracer-wrap standalone, collector failing: the failure said on stderr" \
	grep -q 'HTTP status 500' "$TMP/wrap.err"
fi
stop_httpd

echo "== HTTP collector that accepts and never answers"
# The collector holds the sink's transfer until it is stopped, and the
# sink waits for it up to http_timeout_ms (120 s, its most): beyond every
# deadline below.  Status replies counted after the collector logged the
# request it holds, while it still holds it, prove the loop does not wait
# for the sink; a loop that did would leave a request unanswered by the
# probe's own deadline (30 s each).
start_httpd hang $((HTTP_BASE + 2)) "$TMP/http3.log" || exit 1
start_tracerd hang -o spool_dir="$TMP/spool.hang" -o sinks=file,http \
	-o http_url="http://127.0.0.1:$((HTTP_BASE + 2))/" -o http_timeout_ms=120000 || exit 1
jobs 10 phang &
jobs_pid=$!
held() { grep -q '"held"' "$TMP/http3.log" 2>/dev/null; }
wait_until 60 "the collector to hold the HTTP sink's first request" held
# the socket's own round trip, without a process start per request
python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/probe.out" "$TMP/probe.stop" --min 20 &
PROBE_PID=$!
wait_until 60 "the 10 jobs to end" proc_gone "$jobs_pid"
wait "$jobs_pid" || fail "the 10 jobs did not all run"
touch "$TMP/probe.stop"
wait_until 300 "the status probe's 20 replies" proc_gone "$PROBE_PID"
wait "$PROBE_PID"; PROBE_PID=
echo "    status round trips on the socket (information; make bench measures them): $(cat "$TMP/probe.out")"
check "20 status requests answered after the collector took the request it holds, none unanswered (30 s each)" \
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['failed'] == 0 and d['n'] >= 20))" "$TMP/probe.out"
check "and the collector still holds it: the HTTP sink neither delivered nor failed" \
	dtrue 'sink("http")["delivered"] == 0 and sink("http")["failures"] == 0'
wait_until 30 "the 10 summaries in the file sink despite the hung collector" \
	dtrue 'sink("file")["delivered"] == 10' && pass "a hung sink does not delay the file sink"
check "the 10 summaries wait for the hung sink" dtrue 'sink("http")["pending"] == 10'
# SIGTERM while the collector still holds the transfer (stopped only
# after): tracerd exits long before the sink's own timeout of 120 s
s=$(now_us)
kill -TERM "$TRACERD_PID"
wait_until 60 "tracerd to exit on SIGTERM while the collector holds the transfer" proc_gone "$TRACERD_PID"
e=$(now_us)
echo "    tracerd exited $(( (e - s) / 1000 )) ms after SIGTERM (information)"
# (the collector never lets go of what it holds: alive, it holds it)
check "SIGTERM with a hung sink: tracerd exited while the collector still held the transfer" \
	kill -0 "$HTTPD_PID"
stop_tracerd
check "what the hung sink did not take stays spooled" test "$(spool_files "$TMP/spool.hang")" -eq 10
check "tracerd stopped on SIGTERM, cutting the hung transfer" \
	sh -c "grep -q 'shutting down' '$TRACERD_LOG' && grep -q 'stay in the spool\|stay in $TMP' '$TRACERD_LOG'"
check "no reply body on tracerd's output" sh -c "! grep -q REPLY-BODY-MARKER '$TRACERD_LOG'"
stop_httpd

echo "== file sink: a batch written but not acknowledged before a crash is not written twice"
# the file sink has the 10 summaries, the spool still holds them (for
# the hung sink): its position put back is what SIGKILL between the
# file's fdatasync and the position's save leaves
check "the file sink's position is saved in the spool" test -s "$TMP/spool.hang/file.pos"
echo 0 >"$TMP/spool.hang/file.pos"
start_tracerd hang -o spool_dir="$TMP/spool.hang" -o sinks=file,http \
	-o http_url="http://127.0.0.1:$((HTTP_BASE + 9))/" -o retry_max_ms=1000 || exit 1
wait_until 30 "the file sink to take the 10 summaries again" \
	dtrue 'sink("file")["pending"] == 0 and sink("file")["batches"] >= 1'
check "each summary once in the file (10 lines, 10 summary_ids)" sh -c \
	"[ \$(wc -l <'$TRACERD_FILE') -eq 10 ] && [ \$(python3 '$CHECK' ids '$TRACERD_FILE' | sort -u | wc -l) -eq 10 ]"
check "the summaries not written again are logged" grep -q 'already in .*not written again' "$TRACERD_LOG"
stop_tracerd

echo "== spool cap: the oldest dropped and counted"
start_tracerd cap -o spool_dir="$TMP/spool.cap" -o sinks=http -o spool_max_bytes=65536 \
	-o http_url="http://127.0.0.1:$((HTTP_BASE + 3))/" -o retry_max_ms=1000 || exit 1
jobs 40 pcap
wait_until 30 "40 summaries through the spool" dtrue 'd["spool"]["written"] == 40'
check "summaries dropped by the cap, counted for the spool and the sink" \
	dtrue 'd["spool"]["dropped"] > 0 and sink("http")["dropped"] == d["spool"]["dropped"]'
check "the spool within its cap" dtrue 'd["spool"]["bytes"] <= 65536'
check "the drop is logged" grep -q 'undelivered summaries dropped, the oldest of the largest share' "$TRACERD_LOG"
first=$(cat "$TMP/pcap.1") last=$(cat "$TMP/pcap.40")
check "the oldest summary is the one dropped, the newest kept" \
	sh -c "! grep -q '\"$first\"' '$TMP'/spool.cap/*.rec && grep -q '\"$last\"' '$TMP'/spool.cap/*.rec"
kept=$(dstat 'd["spool"]["records"]')
start_httpd ok $((HTTP_BASE + 3)) "$TMP/http4.log" || exit 1
wait_until 30 "the kept summaries delivered once the collector is up" \
	dtrue "sink('http')['delivered'] == $kept and d['spool']['records'] == 0"
check "delivered + dropped = 40" dtrue 'sink("http")["delivered"] + sink("http")["dropped"] == 40'
stop_tracerd
stop_httpd

echo "== spool on a full tmpfs"
SMALL=$TMP/small
mkdir -p "$SMALL" && mount -t tmpfs -o size=256k tmpfs "$SMALL" || { fail "cannot mount a tmpfs"; SMALL=; }
if [ -n "$SMALL" ]; then
	start_tracerd full -o spool_dir="$SMALL/spool" -o sinks=file,http \
		-o http_url="http://127.0.0.1:$((HTTP_BASE + 4))/" -o retry_max_ms=1000 || exit 1
	dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null
	jobs 5 pfull
	wait_until 20 "failed spool writes to be counted" \
		dtrue 'd["spool"]["disk_full"] > 0 and d["spool"]["write_errors"] > 0' &&
		pass "disk full: the error counted"
	check "disk full: logged" grep -q 'cannot spool a summary.*No space left' "$TRACERD_LOG"
	check "disk full: nothing half-written left in the spool" \
		sh -c "[ -z \"\$(find '$SMALL/spool' -name '.tmp-*')\" ]"
	rm -f "$SMALL/filler"
	wait_until 20 "the waiting summaries spooled once space returns" \
		dtrue 'd["queued"] == 0 and d["spool"]["written"] == 5'
	start_httpd ok $((HTTP_BASE + 4)) "$TMP/http5.log" || exit 1
	wait_until 30 "the 5 summaries delivered" \
		dtrue 'sink("http")["delivered"] == 5 and sink("file")["delivered"] == 5 and d["spool"]["records"] == 0'
	check "no corrupt record, none lost" dtrue 'd["spool"]["corrupt"] == 0 and d["queue_dropped"] == 0'
	check "the collector and the file sink got the same 5 summaries" \
		sh -c "[ \"\$(python3 '$CHECK' ids '$TMP/http5.log' | sort)\" = \"\$(python3 '$CHECK' ids '$TRACERD_FILE' | sort)\" ] &&
		       [ \$(python3 '$CHECK' ids '$TRACERD_FILE' | sort -u | wc -l) -eq 5 ]"
	stop_tracerd
	stop_httpd
fi

echo "== spool records are checked when read back"
mkdir -p "$TMP/spool.bad"
printf 'tracer-spool 1 100 0badc0de\n{"half":' >"$TMP/spool.bad/0000000000000001.rec"
printf '{"half":' >"$TMP/spool.bad/.tmp-0000000000000002"
start_tracerd bad -o spool_dir="$TMP/spool.bad" || exit 1
wait_until 20 "the bad record set aside" dtrue 'd["spool"]["corrupt"] == 1 and d["spool"]["records"] == 0'
check "set aside as .corrupt, never delivered" test -f "$TMP/spool.bad/0000000000000001.rec.corrupt"
check "the leftover of an interrupted write removed" test ! -e "$TMP/spool.bad/.tmp-0000000000000002"
check "nothing reached the file sink" test ! -s "$TRACERD_FILE"
stop_tracerd

echo "== file sink: one line per summary, rotation, mode"
start_tracerd rot -o spool_dir="$TMP/spool.rot" -o file_max_bytes=20000 -o file_keep=2 || exit 1
jobs 20 prot
wait_until 30 "20 summaries in the file sink" dtrue 'sink("file")["delivered"] == 20'
check "rotated: FILE.1 and FILE.2 exist, no FILE.3" \
	sh -c "[ -s '$TRACERD_FILE.1' ] && [ -s '$TRACERD_FILE.2' ] && [ ! -e '$TRACERD_FILE.3' ]"
check "each file under file_max_bytes plus one summary, every line whole JSON" \
	python3 -c "
import json, os, sys
for f in sys.argv[1:]:
    if os.path.exists(f):
        assert os.path.getsize(f) < 20000 + 8000, f
        [json.loads(l) for l in open(f)]" "$TRACERD_FILE" "$TRACERD_FILE.1" "$TRACERD_FILE.2"
check "newest in FILE, older in FILE.1" python3 -c "
import json, sys
a = [json.loads(l)['end_ns'] for l in open(sys.argv[1])]
b = [json.loads(l)['end_ns'] for l in open(sys.argv[2])]
assert min(a) > max(b)" "$TRACERD_FILE" "$TRACERD_FILE.1"
check "the file sink is not world-readable" sh -c "[ \$(( 0\$(stat -c %a '$TRACERD_FILE') & 7 )) -eq 0 ]"
check "every summary has a unique summary_id" sh -c \
	"[ \$(cat '$TRACERD_FILE' '$TRACERD_FILE'.[12] | python3 '$CHECK' ids /dev/stdin | sort -u | wc -l) -eq \$(cat '$TRACERD_FILE' '$TRACERD_FILE'.[12] | wc -l) ]"
stop_tracerd

no_sanitizer_reports "no sanitizer report in tracerd's logs" "${TRACERD_LOGS[@]}"
finish
