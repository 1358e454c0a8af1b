#!/bin/bash
# sweep.sh BUILD - `tracer sweep` on SW_JOBS (1,000,000) synthetic jobs
# in Debian's clickhouse-server on loopback ports SW_TCP/SW_HTTP
# (18931/18954; data in a temporary directory, SW_DIR to put it
# elsewhere): the schema by `tracer datalake migrate`, then rows inserted
# straight into tracer.job_use by INSERT ... SELECT ... FROM numbers():
# 10,000 users in 20 accounts, 5 partitions, 100 pipelines, 500 hosts,
# ends over 35 days, one job in eight of three summaries on two nodes
# (two steps on the first) with tracerd's node increments, the others of
# one summary marked single; two tools a job (30 names, CPU time 2:1) in
# its first summary's row (schema v8).
# Prints, for every --by (SW_BY: those only), the p50 of 5 runs of
# root's `tracer sweep --since 30d` (ClickHouse itself), the p50 of the
# server's CPU time for its main query (system.query_log) and the load
# average beside them; with
# SW_OLD=1 also the same with every row's increments marked absent
# (inc_kind 0: the rows of an older tracer, folded per (job, node)).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${SW_JOBS:-1000000}
TMP=$(mktemp -d "${SW_DIR:-/tmp}/tracer-bench-sweep.XXXXXX")
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
trap 'ch_stop; rm -rf "$TMP"' EXIT
ch_setup "$TMP/ch" "${SW_TCP:-18931}" "${SW_HTTP:-18954}" || exit 1
# query_log on: each query's CPU time, the figure a shared machine leaves comparable
ch_users_xml "" ch-s3cret "<log_queries>1</log_queries>" >"$CH_DIR/users.xml" || exit 1
ch_start || exit 1
CHURL=http://127.0.0.1:$CH_HTTP/
TRACER=("$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/none.ndjson" -o datalake=clickhouse
	-o clickhouse_url="$CHURL")
"${TRACER[@]}" datalake migrate --dir "$TOP/contrib/clickhouse/migrations" >/dev/null ||
	{ echo "FAIL: the schema does not load" >&2; exit 1; }
chq -q "INSERT INTO tracer.job_use
SELECT toDateTime(re) AS end, cityHash64('slurm', 'c1', toString(j)) AS jh,
    cityHash64(jh, hn) AS nh, cityHash64(concat(toString(j), '/', toString(k))) AS sh, toUInt32(10000 + j % 10000),
    concat('u', toString(j % 10000)), concat('a', toString(j % 20)), concat('p', toString(j % 5)),
    concat('pipe', toString(j % 100)), hn, toString(j),
    rs * 1000000000 AS start_ns, if(multi, (je - dur) * 1000000000, start_ns), re * 1000000000,
    toUInt32(cpus), toFloat64(cpus) * (re - rs) * 0.5, mem, pk, toUInt32(j % 50 = 0),
    toUInt8(if(j % 97 = 0, 1, if(j % 89 = 0, 2, 0))),
    1, toUInt8(NOT multi), toUInt32(if(k = 1, 0, cpus)), toFloat64(cpus) * (re - rs) * 0.5,
    toInt64(if(k = 1, -209715200, mem - pk)), toUInt32(if(k = 1, 0, j % 50 = 0)),
    if(k = 0, [concat('tool', toString(2 * j % 30)), concat('tool', toString((2 * j + 1) % 30))],
       emptyArrayString()),
    if(k = 0, [toFloat64(200), 100], emptyArrayFloat64()),
    if(k = 0, [toFloat64(300), 300], emptyArrayFloat64()),
    if(k = 0, [toUInt64(2), 1], emptyArrayUInt64()), toUInt8(1)
FROM (SELECT j, multi, k, je, dur, cpus, mem,
        if(k = 2, concat('n', toString((j + 1) % 500)), concat('n', toString(j % 500))) AS hn,
        if(multi AND k = 0, je - intDiv(dur, 2), je) AS re,
        if(multi AND k = 1, je - intDiv(dur, 2), je - dur) AS rs,
        toUInt64(if(multi, if(k = 0, 104857600, if(k = 1, 314572800, 157286400)),
                    (j % 1000) * 1048576)) AS pk
      FROM (SELECT number AS j, number % 8 = 0 AS multi,
            arrayJoin(if(number % 8 = 0, [0, 1, 2], [0])) AS k,
            toUInt64(now()) - (number * 7919) % 3024000 AS je, 600 + number % 3000 AS dur,
            1 + number % 8 AS cpus, toUInt64(1 + number % 4) * 1073741824 AS mem
            FROM numbers($N)))" || { echo "FAIL: job_use's rows not inserted" >&2; exit 1; }
chq -q "OPTIMIZE TABLE tracer.job_use" 2>/dev/null
rows=$(chq -q "SELECT count() FROM tracer.job_use")
load1() { cut -d' ' -f1 /proc/loadavg; }
p50_ms() {
	local t0 t1 ts=""
	for _ in 1 2 3 4 5; do
		t0=$(now_us)
		"$@" >/dev/null 2>"$TMP/p50.err" || { echo "FAIL: $*: $(head -c 300 "$TMP/p50.err")"; return 1; }
		t1=$(now_us)
		ts+="$(((t1 - t0) / 1000)) "
	done
	echo "$ts" | tr ' ' '\n' | grep . | sort -n | sed -n 3p
}
# the p50 of the server's CPU time (user + system) of the sweep's main
# query (its text has inc_kind) since epoch second $1, in ms
cpu_ms() {
	chq -q "SYSTEM FLUSH LOGS" 2>/dev/null
	chq -q "SELECT round(quantileExact(0.5)((ProfileEvents.Values[indexOf(ProfileEvents.Names,
		'UserTimeMicroseconds')] + ProfileEvents.Values[indexOf(ProfileEvents.Names,
		'SystemTimeMicroseconds')]) / 1000)) FROM system.query_log WHERE type = 2
		AND query LIKE '%inc_kind%' AND query NOT LIKE '%query_log%' AND event_time >= toDateTime($1)"
}
row() { printf "| %-44s | %10s | %10s | %6s |\n" "$@"; }
echo "$N jobs, $rows rows of tracer.job_use, ClickHouse $(chq -q 'SELECT version()')"
row "query" "p50 (ms)" "CPU (ms)" "load"
for by in ${SW_BY:-user account partition pipeline host tool}; do
	t=$(date +%s)
	ms=$(p50_ms "${TRACER[@]}" sweep --since 30d --by "$by")
	row "tracer sweep --since 30d --by $by" "$ms" "$(cpu_ms "$t")" "$(load1)"
done
if [ "${SW_OLD:-0}" = 1 ]; then
	chq -q "ALTER TABLE tracer.job_use UPDATE inc_kind = 0 WHERE inc_kind != 0"
	until [ "$(chq -q "SELECT count() FROM system.mutations WHERE is_done = 0")" = 0 ]; do sleep 1; done
	for by in user host; do
		t=$(date +%s)
		ms=$(p50_ms "${TRACER[@]}" sweep --since 30d --by "$by")
		row "rows without increments: --by $by" "$ms" "$(cpu_ms "$t")" "$(load1)"
	done
fi
