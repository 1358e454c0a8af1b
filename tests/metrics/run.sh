#!/bin/bash
# run.sh BUILD - tracerd's /metrics endpoint scraped by a real Prometheus
# server (Debian's prometheus, own directory and port, stopped by pid): a
# running job's series answer a query through Prometheus's HTTP API, the
# exposition passes `promtool check metrics`, label values are escaped,
# the tool cap is counted, a finished job's series disappear, idle
# clients cannot hold the endpoint, one client cannot take every
# connection, a non-loopback address is refused without
# metrics_allow_remote.  Needs root (tracerd).  Ports 18210-18219,
# loopback only.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-metrics.XXXXXX)
. "$TOP/tests/lib.sh"
PROM_PID=
JOB_PID=
HOLD_PID=

cleanup() {
	[ -n "$HOLD_PID" ] && kill -KILL "$HOLD_PID" 2>/dev/null
	[ -n "$JOB_PID" ] && { touch "$TMP/stop"; wait "$JOB_PID" 2>/dev/null; }
	if [ -n "$PROM_PID" ]; then
		kill -TERM "$PROM_PID" 2>/dev/null
		poll_until 10 proc_gone "$PROM_PID" || kill -KILL "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	fi
	stop_tracerd
	# the second tracerd (port in use) exits after pinning its programs
	rm -rf "/sys/fs/bpf/tracer-test-m2-$$" "/sys/fs/bpf/tracer-test-m3-$$"
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for c in prometheus promtool curl python3 ss; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (apt-get install prometheus curl)"; exit 1; }
done
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
# tracerd's and Prometheus's ports: the first free ones of the range
MPORT=$(free_port 18210 18219) && PPORT=$(free_port 18210 18219 "$MPORT") ||
	{ echo "FAIL: no two free ports in 18210-18219"; exit 1; }

metrics() { curl -sf --max-time 5 "http://127.0.0.1:$MPORT/metrics"; }
start_tracerd metrics -o metrics_listen=127.0.0.1:$MPORT -o sample_interval_ms=200 || exit 1

echo "== the endpoint"
check "GET /metrics answers with the exposition" sh -c "curl -sf --max-time 5 -D $TMP/hdr http://127.0.0.1:$MPORT/metrics | grep -q '^tracer_build_info{version=' && grep -qi '^content-type: text/plain; version=0.0.4' $TMP/hdr"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
check "another path is 404, POST is 405" test "$(code http://127.0.0.1:$MPORT/x)$(code -X POST http://127.0.0.1:$MPORT/metrics)" = 404405

echo "== a running job, with 25 tools and one whose name needs escaping"
mkdir -p "$TMP/bin"
for i in $(seq -w 1 25); do cp /bin/true "$TMP/bin/tool_$i"; done
WEIRD='we"ird\tool'
cp /bin/dd "$TMP/bin/$WEIRD" # some CPU: among the 20 heaviest
cat >"$TMP/job.sh" <<JOB
for i in \$(seq -w 1 25); do "$TMP/bin/tool_\$i"; done
for f in "$TMP/bin/we"*; do "\$f" if=/dev/zero of=/dev/null bs=1M count=3000 2>/dev/null; done
touch "$TMP/tools.done"
# busy until told to stop: CPU for the counters
while [ ! -e "$TMP/stop" ]; do :; done
JOB
trun "$TMP/j.run" -- /bin/sh "$TMP/job.sh" &
JOB_PID=$!
wait_until 30 "the job to register" test -s "$TMP/j.run"
UID_=$(cat "$TMP/j.run")
wait_until 30 "the job's tools to run" test -e "$TMP/tools.done"

has_cpu() { metrics | grep -q "^tracer_job_cpu_seconds_total{job_uid=\"$UID_\"} [0-9.]*[1-9]"; }
wait_until 30 "the job's CPU in the exposition" has_cpu
# the 26 tools ended before tools.done, but tracerd takes their exits in
# from its ring buffer in its own time (on a loaded machine the job's CPU
# was in while 2 of its tools were); the exposition once every tool is
# in: 20 series or more, and at least 7 omitted (the cap is checked
# below, on this exposition)
tools_in() {
	metrics >"$TMP/expo" &&
		[ "$(grep -c "^tracer_tool_cpu_seconds_total{job_uid=\"$UID_\"," "$TMP/expo")" -ge 20 ] &&
		[ "$(sed -n "s/^tracer_job_tools_omitted{job_uid=\"$UID_\"} //p" "$TMP/expo")" -ge 7 ] 2>/dev/null
}
wait_until 30 "the job's tools in the exposition" tools_in
check "promtool check metrics: no problem in the exposition" sh -c "promtool check metrics <$TMP/expo >$TMP/promtool.out 2>&1; rc=\$?; cat $TMP/promtool.out; [ \$rc = 0 ] && [ ! -s $TMP/promtool.out ]"
check "memory, I/O and process series of the running job" sh -c "grep -q '^tracer_job_memory_bytes{job_uid=\"$UID_\"} [1-9]' $TMP/expo && grep -q '^tracer_job_read_bytes_total{job_uid=\"$UID_\"} ' $TMP/expo && grep -q '^tracer_job_processes{job_uid=\"$UID_\"} [1-9]' $TMP/expo"
ntool=$(grep -c "^tracer_tool_cpu_seconds_total{job_uid=\"$UID_\"," "$TMP/expo")
omitted=$(sed -n "s/^tracer_job_tools_omitted{job_uid=\"$UID_\"} //p" "$TMP/expo")
check "tool series capped at 20 per job, the rest counted ($ntool series, $omitted omitted)" test "$ntool" = 20 -a "${omitted:-0}" -ge 7
check "daemon health: events, drops by cause, jobs" sh -c "grep -q '^tracer_kernel_events_total [1-9]' $TMP/expo && grep -q '^tracer_events_dropped_total{cause=\"ringbuf_full\"} ' $TMP/expo && grep -q '^tracer_jobs_open [1-9]' $TMP/expo"

echo "== Prometheus scrapes tracerd"
mkdir -p "$TMP/prom"
cat >"$TMP/prom/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: tracerd
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
YML
prometheus --config.file="$TMP/prom/prometheus.yml" --storage.tsdb.path="$TMP/prom/data" \
	--web.listen-address=127.0.0.1:$PPORT >"$TMP/prom/log" 2>&1 &
PROM_PID=$!
PROMQ="python3 $TOP/tests/metrics/promq.py $PPORT"
if wait_until 60 "Prometheus to have the running job's CPU" \
	$PROMQ "tracer_job_cpu_seconds_total{job_uid=\"$UID_\"}"; then
	pass "a running job's CPU answers a Prometheus query"
else
	sed 's/^/    /' "$TMP/prom/log" | tail -n 20
fi
check "its memory answers too" $PROMQ "tracer_job_memory_bytes{job_uid=\"$UID_\"}"
check "the escaped tool label comes back whole" \
	$PROMQ "tracer_tool_cpu_seconds_total{job_uid=\"$UID_\",tool=\"we\\\"ird\\\\tool\"}" --any
check "the target is up" $PROMQ 'up{job="tracerd"}'

echo "== idle clients cannot hold the endpoint"
# 16 idle connections (2 kept: the limit per client), held from the
# marker on: the checks below are made while they are
python3 - "$MPORT" "$TMP/held" <<'PY' &
import os, socket, sys, time
socks = []
for _ in range(16):
    try:
        socks.append(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2))
    except OSError:
        pass
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write("%d\n" % len(socks))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(30)
PY
HOLD_PID=$!
wait_until 30 "the idle connections to be made" test -s "$TMP/held"
check "tracer status answers while idle connections are held" tr_cli status
wait_until 30 "/metrics to answer again once idle connections time out" metrics && \
	pass "/metrics answers again after the idle connections time out"
kill -KILL "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=

echo "== one client cannot take every connection"
# two idle connections from 127.0.0.1 (the limit per client): a third from
# the same address is closed unanswered, one from 127.0.0.2 is served
python3 - "$MPORT" >"$TMP/perclient.out" 2>&1 <<'PY'
import socket, sys
port = int(sys.argv[1])
def conn(src):
    s = socket.socket()
    s.settimeout(10)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s
def answer(src):
    s = conn(src)
    try:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except OSError as e:
        return "error " + type(e).__name__
    finally:
        s.close()
    return data.split(b"\r\n", 1)[0].decode() or "closed"
held = [conn("127.0.0.1"), conn("127.0.0.1")]
held[0].sendall(b"G")  # a request begun: the connection is in use
print("same:", answer("127.0.0.1"))
print("other:", answer("127.0.0.2"))
PY
check "a third connection from the same client is refused" grep -qE "^same: (closed|error)" "$TMP/perclient.out"
check "another client is served meanwhile" grep -q "^other: HTTP/1.[01] 200" "$TMP/perclient.out"
sed 's/^/    /' "$TMP/perclient.out"

echo "== the job ends: its series disappear"
# the cap's count from a copy rendered long after the last tool started
# (the first copy may predate the last tools: it is rendered every interval)
omitted=$(metrics | sed -n "s/^tracer_job_tools_omitted{job_uid=\"$UID_\"} //p")
touch "$TMP/stop"
wait "$JOB_PID"; JOB_PID=
wait_until 30 "the job's summary" summary_of_job "$TMP/j.run"
gone() { metrics >"$TMP/expo2" && ! grep -q "job_uid=\"$UID_\"" "$TMP/expo2"; }
wait_until 30 "the finished job's series to disappear" gone && pass "a finished job's series are gone"
delivered() { metrics | grep -q '^tracer_sink_deliveries_total{sink="file"} [1-9]'; }
wait_until 30 "the file sink's delivery in the exposition" delivered &&
	check "delivery: spool depth and bytes, per-sink deliveries, failures, last success time" sh -c "
	metrics() { curl -sf --max-time 5 http://127.0.0.1:$MPORT/metrics; }
	metrics >$TMP/expo3 && grep -q '^tracer_spool_summaries [0-9]' $TMP/expo3 &&
	grep -q '^tracer_spool_bytes [0-9]' $TMP/expo3 &&
	grep -q '^tracer_sink_failures_total{sink=\"file\"} 0' $TMP/expo3 &&
	grep -q '^tracer_sink_last_success_time_seconds{sink=\"file\"} [1-9]' $TMP/expo3 &&
	promtool check metrics <$TMP/expo3"
check "the cap counted the tools beyond 20 (summary: $(python3 -c '
import json,sys
print(len([json.loads(l) for l in open(sys.argv[1])][-1]["tools"]))' "$TRACERD_FILE") tools)" \
	python3 -c 'import json,sys; s=[json.loads(l) for l in open(sys.argv[1])][-1]; sys.exit(0 if len(s["tools"]) == 20 + int(sys.argv[2]) else 1)' "$TRACERD_FILE" "$omitted"

echo "== a port in use is a clear error"
"$BUILD/tracerd" -o socket="$TMP/second.sock" -o file="$TMP/second.ndjson" -o sinks=file \
	-o spool_dir="$TMP/second.spool" -o state_dir="$TMP/second.state" \
	-o pin_dir=/sys/fs/bpf/tracer-test-m2-$$ -o rules="$TOP/contrib/rules/tools.rules" \
	-o metrics_listen=127.0.0.1:$MPORT >"$TMP/second.log" 2>&1 &
SECOND=$!
if poll_until 30 proc_gone "$SECOND" && grep -q "metrics_listen: cannot listen on 127.0.0.1:$MPORT" "$TMP/second.log"; then
	pass "a second tracerd on the same metrics port exits, saying why"
else
	fail "second tracerd on a used port"; kill -KILL "$SECOND" 2>/dev/null; sed 's/^/    /' "$TMP/second.log"
fi
wait "$SECOND" 2>/dev/null

echo "== an address other hosts reach needs metrics_allow_remote"
"$BUILD/tracerd" -o socket="$TMP/third.sock" -o file="$TMP/third.ndjson" -o sinks=file \
	-o spool_dir="$TMP/third.spool" -o state_dir="$TMP/third.state" \
	-o pin_dir=/sys/fs/bpf/tracer-test-m3-$$ -o rules="$TOP/contrib/rules/tools.rules" \
	-o metrics_listen=0.0.0.0:$((MPORT + 2)) >"$TMP/third.log" 2>&1 &
THIRD=$!
if poll_until 30 proc_gone "$THIRD" &&
	grep -q "metrics_listen: 0.0.0.0:$((MPORT + 2)) is not a loopback address (set metrics_allow_remote = true" "$TMP/third.log"; then
	pass "metrics_listen = 0.0.0.0:PORT: tracerd exits, saying why"
else
	fail "metrics_listen on 0.0.0.0 without metrics_allow_remote"; kill -KILL "$THIRD" 2>/dev/null; sed 's/^/    /' "$TMP/third.log"
fi
wait "$THIRD" 2>/dev/null

stop_tracerd
if grep -qiE "AddressSanitizer|runtime error" "$TRACERD_LOG"; then fail "sanitizer report in tracerd log"; sed 's/^/    /' "$TRACERD_LOG"; fi
# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 1 $(summary_files "$TMP")
finish
