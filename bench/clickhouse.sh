#!/bin/bash
# clickhouse.sh BUILD - delivery into ClickHouse (bench/run.sh part
# "clickhouse"), against Debian's clickhouse-server with its data in a
# temporary directory, on loopback ports 18102/18125:
#   - job end -> row in tracer.jobs: median and p99 over CH_JOBS (200)
#     jobs run back to back (bench/clickhouse_latency.py);
#   - replay of a spool of CH_SPOOL (10,000) summaries: summaries per
#     second from tracerd's start to the last row (BPF loading included);
#   - tracerd's RSS idle with an empty spool, idle with the full spool
#     while ClickHouse is down, and its peak during the replay.
# Prints rows of bench/run.sh's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-bench-ch.XXXXXX)
N=${CH_JOBS:-200}
SPOOL_N=${CH_SPOOL:-10000}
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
trap 'stop_tracerd; ch_stop; rm -rf "$TMP"' EXIT
row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
rss_mib() { awk -v k="$1" '$1 == k":" {printf "%.1f", $2 / 1024}' "/proc/$TRACERD_PID/status"; }
ch_rows() { [ "$(chq -q "SELECT count() FROM tracer.jobs FINAL WHERE pipeline = '$1'")" = "$2" ]; }
spool_empty() { [ "$(tr_cli status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["delivery"]["spool"]["records"])')" = 0 ]; }

ch_setup "$TMP/ch" 18102 18125
ch_start || exit 1
"$BUILD/tracer" -o clickhouse_url=http://127.0.0.1:18125/ datalake migrate \
	--dir "$TOP/contrib/clickhouse/migrations" >/dev/null || { echo "FAIL: the schema does not load" >&2; exit 1; }
CH=(-o sinks=file,clickhouse -o clickhouse_url=http://127.0.0.1:18125/ -o retry_max_ms=1000)

# job end -> row
start_tracerd lat -o spool_dir="$TMP/spool.lat" "${CH[@]}" >/dev/null || exit 1
python3 "$TOP/bench/clickhouse_latency.py" 18125 bench-lat "$N" >"$TMP/lat.out" &
poller=$!
for i in $(seq 1 "$N"); do
	tr_cli run --pipeline bench-lat -- /bin/true >/dev/null 2>&1
done
wait "$poller" || { echo "FAIL: latency: $(cat "$TMP/lat.out")" >&2; exit 1; }
read -r med p99 <"$TMP/lat.out"
stop_tracerd
row "job end -> row in ClickHouse, $N jobs: median (s)" "" "$med" "" ""
row "job end -> row in ClickHouse, $N jobs: p99 (s)" "" "$p99" "" "<= 2"

# RSS with an empty spool, ClickHouse down
ch_stop
start_tracerd idle -o spool_dir="$TMP/spool.idle" "${CH[@]}" >/dev/null || exit 1
poll_until 5 false # idle for 5 s: nothing to wait for
rss_empty=$(rss_mib VmRSS)
stop_tracerd
# RSS with a full spool, ClickHouse down (several failed attempts)
python3 "$TOP/bench/spool_fill.py" "$TMP/lat.ndjson" "$TMP/spool.full" "$SPOOL_N" bench-replay
spool_mib=$(du -sm "$TMP/spool.full" | cut -f1)
start_tracerd full -o spool_dir="$TMP/spool.full" "${CH[@]}" >/dev/null || exit 1
ch_failed_thrice() { [ "$(tr_cli status --json | python3 -c 'import json,sys; print([s for s in json.load(sys.stdin)["delivery"]["sinks"] if s["sink"] == "clickhouse"][0]["failures"] >= 3)')" = True ]; }
poll_until 30 ch_failed_thrice || { echo "FAIL: the ClickHouse sink did not retry" >&2; exit 1; }
rss_full=$(rss_mib VmRSS)
stop_tracerd
row "tracerd RSS idle, empty spool (MiB)" "" "$rss_empty" "" ""
row "tracerd RSS, $SPOOL_N-summary spool ($spool_mib MiB) (MiB)" "" "$rss_full" "" "unchanged"

# replay: from tracerd's launch (its start, BPF loading included, is
# counted) to the last row
ch_start || exit 1
t0=$(now_us)
start_tracerd full -o spool_dir="$TMP/spool.full" "${CH[@]}" >/dev/null || exit 1
ready=$(now_us)
poll_until 300 ch_rows bench-replay "$SPOOL_N" || { echo "FAIL: replay did not complete" >&2; exit 1; }
t1=$(now_us)
hwm=$(rss_mib VmHWM)
poll_until 30 spool_empty
stop_tracerd
row "replay of $SPOOL_N spooled summaries (summaries/s)" "" \
	"$(echo "$SPOOL_N * 1000000 / ($t1 - $t0)" | bc)" "" ">= 2000"
row "  of which tracerd's start until it answered (s)" "" \
	"$(echo "scale=2; ($ready - $t0) / 1000000" | bc)" "" ""
row "tracerd peak RSS during that replay (MiB)" "" "$hwm" "" ""
