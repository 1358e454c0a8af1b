#!/bin/bash
# datalake.sh BUILD - the datalake at scale (bench/run.sh part
# "datalake"): DL_SUMMARIES (1,000,000) synthetic job summaries of
# 10,000 users and 100 pipelines (bench/datalake_gen.c: 2-6 tools each,
# DL_PROCS (4) processes in each tree), turned into rows by the sink's
# own conversion and inserted with clickhouse-client (JSONEachRow, as
# the sink sends them) into Debian's clickhouse-server on loopback
# ports 18901/18924, data in a temporary directory (DL_DIR to keep it
# elsewhere).  Measures:
#   - the sustained insert rate (summaries/s), generation apart;
#   - bytes on disk per table, per job row and per process row;
#   - p50 of 5 runs of every query of contrib/clickhouse/queries.sql, of
#     what `tracer jobs -S now-30days -u USER` and `tracer show JOB`
#     select, of tracer.job_view for one job, and of
#     `tracer report --clickhouse --by pipeline --since 30d`.
# Prints rows of bench/run.sh's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${DL_SUMMARIES:-1000000}
PROCS=${DL_PROCS:-4}
CHUNK=${DL_CHUNK:-50000}
TMP=$(mktemp -d "${DL_DIR:-/tmp}/tracer-bench-dl.XXXXXX")
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
GEN_PID=
trap '[ -n "$GEN_PID" ] && kill "$GEN_PID" 2>/dev/null; ch_stop; rm -rf "$TMP"' EXIT
row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
CHURL=http://127.0.0.1:18924/

cc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$TOP/lib" -I"$BUILD" -I"$TOP/bpf" -o "$TMP/gen" \
	"$TOP/bench/datalake_gen.c" "$BUILD/libtracer.a" -lcjson -lcurl -lz -lm ||
	{ echo "FAIL: cannot build bench/datalake_gen.c" >&2; exit 1; }
ch_setup "$TMP/ch" 18901 18924
ch_start || exit 1
"$BUILD/tracer" -o clickhouse_url=$CHURL datalake migrate --dir "$TOP/contrib/clickhouse/migrations" >/dev/null ||
	{ echo "FAIL: tracer datalake migrate" >&2; exit 1; }

# generation of chunk k+1 overlaps the insert of chunk k; only the
# inserts are timed
gen() { mkdir -p "$TMP/c$1" && "$TMP/gen" "$(($1 * CHUNK))" "$2" "$PROCS" "$TMP/c$1"; }
chunks=$(((N + CHUNK - 1) / CHUNK))
size() { local left=$((N - $1 * CHUNK)); echo $((left < CHUNK ? left : CHUNK)); }
gen 0 "$(size 0)" || { echo "FAIL: datalake_gen" >&2; exit 1; }
insert_us=0
for k in $(seq 0 $((chunks - 1))); do
	GEN_PID=
	if [ $((k + 1)) -lt "$chunks" ]; then gen $((k + 1)) "$(size $((k + 1)))" & GEN_PID=$!; fi
	t0=$(now_us)
	for t in tools processes flags jobs; do # the sink's order: jobs last
		chq --max_insert_block_size=8192 -q "INSERT INTO tracer.$t FORMAT JSONEachRow" <"$TMP/c$k/$t.json" ||
			{ echo "FAIL: insert into tracer.$t" >&2; exit 1; }
	done
	insert_us=$((insert_us + $(now_us) - t0))
	rm -rf "$TMP/c$k"
	if [ -n "$GEN_PID" ]; then wait "$GEN_PID" || { echo "FAIL: datalake_gen" >&2; exit 1; }; fi
done
GEN_PID=
# sizes once the server has merged what it will (OPTIMIZE would be
# unrealistic: a live datalake is never fully merged)
parts() { chq -q "SELECT sum(rows), sum(bytes_on_disk), count() FROM system.parts WHERE active AND database = 'tracer' AND table = '$1' FORMAT TSV"; }
read -r jobs_rows jobs_bytes jobs_parts <<<"$(parts jobs)"
read -r proc_rows proc_bytes proc_parts <<<"$(parts processes)"
read -r tool_rows tool_bytes tool_parts <<<"$(parts tools)"
read -r flag_rows flag_bytes flag_parts <<<"$(parts flags)"
all_bytes=$((jobs_bytes + proc_bytes + tool_bytes + flag_bytes))

echo
echo "datalake at scale: $N summaries ($((N / 2)) jobs of 2 steps), $PROCS processes per summary,"
echo "ClickHouse $(chq -q 'SELECT version()'), $(nproc) CPUs; p50 of 5 runs"
echo
row "measure" "" "value" "" ""
row "----------------------------------------------" "------------" "------------" "--------" "----------"
row "insert rate, sink's JSONEachRow (summaries/s)" "" "$((N * 1000000 / insert_us))" "" ""
row "rows: jobs / tools / processes / flags" "" "$jobs_rows" "" ""
row "  tools, processes, flags rows" "" "$tool_rows" "$proc_rows" "$flag_rows"
row "on disk, all tables (MiB)" "" "$((all_bytes / 1048576))" "" ""
row "on disk per summary, all tables (bytes)" "" "$((all_bytes / N))" "" ""
row "on disk per jobs row, summary included (bytes)" "" "$((jobs_bytes / jobs_rows))" "" ""
row "on disk per process row (bytes)" "" "$((proc_bytes / proc_rows))" "" ""
row "on disk per tool row (bytes)" "" "$((tool_bytes / tool_rows))" "" ""
row "active parts: jobs / processes" "" "$jobs_parts" "$proc_parts" ""

# p50 of 5 runs of one query (seconds, as clickhouse-client --time says)
p50() {
	local i ts=()
	for i in 1 2 3 4 5; do
		ts+=("$(chq --time --format Null -q "$1" 2>&1 >/dev/null | tail -n 1)")
	done
	printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}
p50_cmd() {
	local i s ts=()
	for i in 1 2 3 4 5; do
		s=$(now_us); "$@" >/dev/null 2>&1 || { echo "FAIL: $*" >&2; echo "-"; return; }
		ts+=("$(echo "scale=3; ($(now_us) - s) / 1000000" | bc)")
	done
	printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}
awk -v dir="$TMP" 'BEGIN { n = 1 } /^-- / && t == "" { t = substr($0, 4) } /^--/ { next } { q = q $0 "\n" } /^;$/ { print q > (dir "/query." n); print t > (dir "/title." n); n++; q = ""; t = "" }' \
	"$TOP/contrib/clickhouse/queries.sql"
for f in $(ls "$TMP"/query.* | sort -t. -k2 -n); do
	n=${f##*.}
	row "queries.sql $n: $(cut -c1-32 "$TMP/title.$n") (s)" "" "$(p50 "$(cat "$f")")" "" ""
done
user=$(chq -q "SELECT user FROM tracer.jobs GROUP BY user ORDER BY count() DESC LIMIT 1")
read -r cl job <<<"$(chq -q "SELECT cluster, job_id FROM tracer.jobs WHERE alloc_nodes > 0 LIMIT 1 OFFSET $((N / 3)) FORMAT TSV")"
# the summaries of a selection, two ways: FINAL (folds rows delivered
# twice while reading, but reads the summary of every row the sorting
# key does not exclude) and PREWHERE on the key columns with LIMIT 1 BY
# summary_id (reads the summary of the matching granules only)
row "jobs -S now-30days -u $user: FINAL (s)" "" \
	"$(p50 "SELECT summary FROM tracer.jobs FINAL WHERE user = '$user' AND end >= now() - INTERVAL 30 DAY ORDER BY end")" "" ""
row "  the same, PREWHERE + LIMIT 1 BY summary_id (s)" "" \
	"$(p50 "SELECT summary FROM tracer.jobs PREWHERE user = '$user' AND end >= now() - INTERVAL 30 DAY ORDER BY end LIMIT 1 BY summary_id")" "" ""
row "  ... summaries it returns" "" \
	"$(chq -q "SELECT count() FROM tracer.jobs FINAL WHERE user = '$user' AND end >= now() - INTERVAL 30 DAY")" "" ""
row "show JOB: one (cluster, job_id), FINAL (s)" "" \
	"$(p50 "SELECT summary FROM tracer.jobs FINAL WHERE cluster = '$cl' AND job_id = '$job' ORDER BY start_ns")" "" ""
row "  the same, PREWHERE + LIMIT 1 BY summary_id (s)" "" \
	"$(p50 "SELECT summary FROM tracer.jobs PREWHERE cluster = '$cl' AND job_id = '$job' ORDER BY start_ns LIMIT 1 BY summary_id")" "" ""
row "tracer.job_view, one (cluster, job_id) (s)" "" \
	"$(p50 "SELECT * FROM tracer.job_view WHERE cluster = '$cl' AND job_id = '$job'")" "" ""
row "tracer.job_view, every job of the last day (s)" "" \
	"$(p50 "SELECT count() FROM tracer.job_view WHERE end >= now() - INTERVAL 1 DAY")" "" ""
row "report --clickhouse --by pipeline --since 30d (s)" "" \
	"$(p50_cmd "$BUILD/tracer" -o clickhouse_url=$CHURL report --clickhouse --by pipeline --since 30d)" "" ""
