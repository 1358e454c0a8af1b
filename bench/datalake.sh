#!/bin/bash
# datalake.sh BUILD - the datalake at scale (bench/run.sh part
# "datalake"): DL_JOBS (1,000,000) synthetic Slurm jobs of a site
# (bench/datalake_gen.c: 200 users in 20 accounts, 5 partitions, 40
# pipelines of 5-10 steps, one job in eight on two nodes with three
# summaries, DL_PROCS (4) processes in each summary's tree), turned into
# rows by the sink's own conversion and loaded into Debian's
# clickhouse-server on loopback ports DL_TCP/DL_HTTP (18901/18924; data
# in a temporary directory, DL_DIR to put it elsewhere).  Measures:
#   - the insert rate of the sink's way (JSONEachRow in blocks of 8192
#     rows, one insert per table, as tracerd sends them) over the first
#     DL_SINK_JOBS (25,000) jobs;
#   - the bulk load of the rest: ClickHouse copies those jobs (the
#     templates) with new ids and days until there are DL_JOBS;
#   - bytes on disk per table, per job row and per process row;
#   - p50 of 5 runs of every query of contrib/clickhouse/queries.sql, of
#     `tracer jobs -u USER -S now-30days` and `tracer show JOB` (root's
#     tracer, reading ClickHouse itself), of tracer.job_view for one job
#     and of the same view read by job_keys without FINAL, of the main
#     query of `tracer report --clickhouse --by pipeline` with FINAL, with
#     LIMIT 1 BY summary_id and with neither (the SQL alone), of
#     `tracer report --clickhouse --by pipeline --since 30d`, and,
#     when the tracer of BUILD has them, of `tracer tune --pipeline P
#     --since 30d` and `tracer sweep --since 30d --by user`.
# Prints rows of bench/run.sh's table.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${DL_JOBS:-1000000}
S=${DL_SINK_JOBS:-25000}
PROCS=${DL_PROCS:-4}
[ "$S" -le "$N" ] || S=$N
TMP=$(mktemp -d "${DL_DIR:-/tmp}/tracer-bench-dl.XXXXXX")
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
cleanup() {
	ch_stop
	rm -rf "$TMP"
}
trap cleanup EXIT
row() { printf "| %-50s | %12s | %12s | %8s | %-10s |\n" "$@"; }
TCP=${DL_TCP:-18901} HTTP=${DL_HTTP:-18924}
CHURL=http://127.0.0.1:$HTTP/
TRACER=("$BUILD/tracer" -o datalake=clickhouse -o clickhouse_url=$CHURL)
TABLES=(jobs tools processes flags)

cc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$TOP/lib" -I"$BUILD" -I"$TOP/bpf" -o "$TMP/gen" \
	"$TOP/bench/datalake_gen.c" "$BUILD/libtracer.a" -lcjson -lcurl -lz -lm ||
	{ echo "FAIL: cannot build bench/datalake_gen.c" >&2; exit 1; }
ch_setup "$TMP/ch" "$TCP" "$HTTP"
# another server on these ports would answer for ours
! ch_ping || { echo "FAIL: port $HTTP is taken (DL_TCP, DL_HTTP choose others)" >&2; exit 1; }
ch_start || exit 1
"${TRACER[@]}" datalake migrate --dir "$TOP/contrib/clickhouse/migrations" >/dev/null ||
	{ echo "FAIL: tracer datalake migrate" >&2; exit 1; }

# 1. the sink's way: files first (generation is not timed), then the
# inserts, jobs last as the sink does; job ids are 7000000 + the job's
# number
mkdir "$TMP/sink"
"$TMP/gen" 0 "$S" "$PROCS" "$TMP/sink/jobs" "$TMP/sink/tools" "$TMP/sink/processes" \
	"$TMP/sink/flags" || { echo "FAIL: datalake_gen" >&2; exit 1; }
sink_rows=$(wc -l <"$TMP/sink/jobs")
t0=$(now_us)
for t in tools processes flags jobs; do
	chq --max_insert_block_size=8192 -q "INSERT INTO tracer.$t FORMAT JSONEachRow" <"$TMP/sink/$t" ||
		{ echo "FAIL: insert into tracer.$t" >&2; exit 1; }
done
sink_us=$(($(now_us) - t0))
rm -rf "$TMP/sink"

# 2. the bulk load: the first DL_SINK_JOBS jobs are the templates of the
# rest.  ClickHouse copies them (INSERT ... SELECT, no parsing, the
# materialized view filling job_keys as for any insert) as many times as
# it takes, each copy with new job ids and summary ids, moved to another
# day of the last 35 (in the columns and in the summary's start_ns and
# end_ns), so that users, pipelines, runs, inputs and states keep their
# shape; the summary's other times stay the template's.  (ClickHouse
# 18.16's replaceAll takes constant patterns only: the summary is spliced
# at the places datalake_gen writes its ids and times.)
NOW=$(( $(date +%s) / 86400 * 86400 )) WIN=$((35 * 86400))
copy_expr() { # copy_expr COLUMN: the column of copy __K__ of a template row
	local d="(toInt64(toUInt32(end)) - ($NOW - (($NOW - toInt64(toUInt32(end)) + __K__ * 104729) % $WIN)))"
	local sid="concat(substring(summary_id, 1, 28), lower(substring(hex(toUInt32(65536 + __K__)), 3, 4)))"
	local job="toString(toUInt64(job_id) + __K__ * $S)"
	case $1 in
	summary_id) echo "$sid" ;;
	job_id) echo "if(job_id = '', '', $job)" ;;
	job) echo "concat(substring(job, 1, position(job, ':')), $job, substring(job, position(job, ':') + 1 + length(job_id)))" ;;
	end | start | submit | job_start | first_start | last_end)
		echo "if(toUInt32($1) = 0, $1, toDateTime(toInt64(toUInt32($1)) - $d))" ;;
	end_ns | start_ns) echo "toUInt64(toInt64($1) - $d * 1000000000)" ;;
	start_ms) echo "toUInt64(toInt64($1) - $d * 1000)" ;;
	summary) # the same, spliced at the places the generator writes them (a
		# replacement is as long as what it replaces: the places do not move)
		local ps="(position(summary, '\"summary_id\":\"') + 14)" pj="(position(summary, '\"job\":\"') + 13)"
		local pst="(position(summary, '\"start_ns\":') + 11)" pen="(position(summary, '\"end_ns\":') + 9)"
		local pid="(position(summary, '\"job_id\":\"') + 10)" l="length(job_id)"
		echo "concat(substring(summary, 1, $ps - 1), $sid, substring(summary, $ps + 32, $pj - $ps - 32), $job, substring(summary, $pj + $l, $pst - $pj - $l), toString(toUInt64(toInt64(start_ns) - $d * 1000000000)), substring(summary, $pst + 19, $pen - $pst - 19), toString(toUInt64(toInt64(end_ns) - $d * 1000000000)), substring(summary, $pen + 19, $pid - $pen - 19), $job, substring(summary, $pid + $l))" ;;
	*) echo "$1" ;;
	esac
}
copies=$(((N + S - 1) / S - 1))
# job ids keep their 7 digits: the summaries are spliced in place
[ "$N" -lt 3000000 ] || { echo "FAIL: DL_JOBS must be under 3000000" >&2; exit 1; }
t0=$(now_us)
for t in "${TABLES[@]}"; do
	chq --allow_experimental_low_cardinality_type=1 -q "CREATE TABLE tracer.tpl_$t ENGINE = Memory AS SELECT * FROM tracer.$t" ||
		{ echo "FAIL: templates of tracer.$t" >&2; exit 1; }
	cols=() exprs=()
	while read -r c; do
		cols+=("$c")
		exprs+=("$(copy_expr "$c")")
	done < <(chq -q "SELECT name FROM system.columns WHERE database = 'tracer' AND table = '$t'")
	sel=$(IFS=,; echo "${exprs[*]}")
	collist=$(IFS=,; echo "${cols[*]}")
	for k in $(seq 1 "$copies"); do
		# the last copy stops at N jobs
		last=$((N - k * S))
		where="1"
		[ "$last" -lt "$S" ] && where="summary_id IN (SELECT summary_id FROM tracer.tpl_jobs WHERE toUInt64(job_id) < $((7000000 + last)))"
		chq -q "INSERT INTO tracer.$t ($collist) SELECT ${sel//__K__/$k} FROM tracer.tpl_$t WHERE $where" ||
			{ echo "FAIL: copy $k into tracer.$t" >&2; exit 1; }
	done
	chq -q "DROP TABLE tracer.tpl_$t"
done
bulk_us=$(($(now_us) - t0))

# sizes once the server has merged what it will (OPTIMIZE would be
# unrealistic: a live datalake is never fully merged); queries are
# timed once no merge runs, at most 10 minutes later
merges_done() { [ "$(chq -q "SELECT count() FROM system.merges")" = 0 ]; }
poll_until 600 merges_done || echo "note: merges still running" >&2
parts() { chq -q "SELECT sum(rows), sum(bytes_on_disk), count() FROM system.parts WHERE active AND database = 'tracer' AND table = '$1' FORMAT TSV"; }
read -r jobs_rows jobs_bytes jobs_parts <<<"$(parts jobs)"
read -r proc_rows proc_bytes proc_parts <<<"$(parts processes)"
read -r tool_rows tool_bytes _ <<<"$(parts tools)"
read -r flag_rows flag_bytes _ <<<"$(parts flags)"
read -r key_rows key_bytes _ <<<"$(parts job_keys)"
all_bytes=$((jobs_bytes + proc_bytes + tool_bytes + flag_bytes + key_bytes))
njobs=$(chq -q "SELECT uniqExact(cluster, job_id) FROM tracer.jobs")

echo
echo "datalake at scale: $njobs jobs ($jobs_rows summaries), $PROCS processes per summary,"
echo "ClickHouse $(chq -q 'SELECT version()'), $(nproc) CPUs; p50 of 5 runs"
echo
row "measure" "" "value" "" ""
row "--------------------------------------------------" "------------" "------------" "--------" "----------"
row "insert, the sink's way: $sink_rows summaries (per s)" "" "$((sink_rows * 1000000 / sink_us))" "" ""
row "bulk load (copies): jobs per s" "" "$(((N - S) * 1000000 / bulk_us))" "" ""
row "  summaries per s" "" "$(((jobs_rows - sink_rows) * 1000000 / bulk_us))" "" ""
row "  process rows per s" "" "$(((proc_rows - proc_rows * S / N) * 1000000 / bulk_us))" "" ""
row "  load time (s)" "" "$((bulk_us / 1000000))" "" ""
row "rows: jobs / tools / processes / flags" "" "$jobs_rows" "$tool_rows" "$proc_rows"
row "  flags / job_keys rows" "" "$flag_rows" "$key_rows" ""
row "on disk, all tables (MiB)" "" "$((all_bytes / 1048576))" "" ""
row "on disk per summary, all tables (bytes)" "" "$((all_bytes / jobs_rows))" "" ""
row "on disk per jobs row, summary included (bytes)" "" "$((jobs_bytes / jobs_rows))" "" ""
row "on disk per process row (bytes)" "" "$((proc_bytes / proc_rows))" "" ""
row "on disk per job_keys row (bytes)" "" "$((key_bytes / key_rows))" "" ""
row "active parts: jobs / processes" "" "$jobs_parts" "$proc_parts" ""

# p50 of 5 runs of one query (seconds, as clickhouse-client --time says)
p50() {
	local i ts=()
	for i in 1 2 3 4 5; do
		ts+=("$(chq --time --format Null -q "$1" 2>&1 >/dev/null | tail -n 1)")
	done
	printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}
# p50 of 5 runs of a command; "-" when it fails
p50_cmd() {
	local i s ts=()
	for i in 1 2 3 4 5; do
		s=$(now_us); "$@" >/dev/null 2>"$TMP/cmd.err" || { echo "FAIL: $*: $(head -c 300 "$TMP/cmd.err")" >&2; echo "-"; return; }
		ts+=("$(echo "scale=3; ($(now_us) - $s) / 1000000" | bc | sed "s/^\./0./")")
	done
	printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}
awk -v dir="$TMP" 'BEGIN { n = 1 } /^$/ { t = "" } /^-- / && t == "" { t = substr($0, 4) } /^--/ { next } { q = q $0 "\n" } /^;$/ { print q > (dir "/query." n); print t > (dir "/title." n); n++; q = ""; t = "" }' \
	"$TOP/contrib/clickhouse/queries.sql"
for f in $(ls "$TMP"/query.* | sort -t. -k2 -n); do
	n=${f##*.}
	row "queries.sql $n: $(cut -c1-36 "$TMP/title.$n") (s)" "" "$(p50 "$(cat "$f")")" "" ""
done
user=$(chq -q "SELECT user FROM tracer.jobs GROUP BY user ORDER BY count() DESC LIMIT 1")
read -r cl job <<<"$(chq -q "SELECT cluster, job_id FROM tracer.jobs WHERE alloc_nodes > 1 LIMIT 1 OFFSET 1000 FORMAT TSV")"
pipe=$(chq -q "SELECT pipeline FROM tracer.jobs GROUP BY pipeline ORDER BY count() DESC LIMIT 1")
row "jobs -u $user -S now-30days (s)" "" \
	"$(p50_cmd "${TRACER[@]}" jobs -u "$user" -S now-30days)" "" ""
row "  ... summaries it lists" "" \
	"$("${TRACER[@]}" jobs -u "$user" -S now-30days 2>/dev/null | grep -c "^ *[0-9a-z]")" "" ""
row "show $job (a 2-node job, 3 summaries) (s)" "" "$(p50_cmd "${TRACER[@]}" show "$job")" "" ""
row "show $job --brief (s)" "" "$(p50_cmd "${TRACER[@]}" show --brief "$job")" "" ""
row "tracer.job_view, one (cluster, job_id) (s)" "" \
	"$(p50 "SELECT * FROM tracer.job_view WHERE cluster = '$cl' AND job_id = '$job'")" "" ""
# the same view of one job without FINAL: its rows by job_keys, a row
# delivered twice folded by LIMIT 1 BY summary_id
one_view="SELECT cluster, job_id, any(n_user) AS user, min(n_start) AS start, max(n_end) AS end,
 toUInt32(count()) AS nodes, sum(n_steps) AS summaries, sum(n_cpu_s) AS cpu_s,
 sum(n_alloc_cpus) AS alloc_cpus, sum(n_alloc_mem_bytes) AS alloc_mem_bytes,
 max(n_mem_peak_bytes) AS mem_peak_bytes FROM (SELECT cluster, job_id, host, any(user) AS n_user,
 min(start) AS n_start, max(end) AS n_end, count() AS n_steps, sum(cpu_s) AS n_cpu_s,
 max(alloc_cpus) AS n_alloc_cpus, max(alloc_mem_bytes) AS n_alloc_mem_bytes,
 max(mem_peak_bytes) AS n_mem_peak_bytes FROM (SELECT cluster, job_id, host, user, start, end,
 cpu_s, alloc_cpus, alloc_mem_bytes, mem_peak_bytes FROM tracer.jobs
 PREWHERE (user, end, summary_id) IN (SELECT user, end, summary_id FROM tracer.job_keys
 PREWHERE key = '$job' AND cluster = '$cl') WHERE cluster = '$cl' AND job_id = '$job'
 LIMIT 1 BY summary_id) GROUP BY cluster, job_id, host) GROUP BY cluster, job_id"
row "one job's view by job_keys, no FINAL (s)" "" "$(p50 "$one_view")" "" ""
# tracer report --clickhouse --by pipeline's main query before (FINAL)
# and now (LIMIT 1 BY summary_id), the SQL alone
from=$(($(date +%s) - 30 * 86400))
jk="if(job_id != '', concat(cluster, '/', job_id), summary_id)"
aggs="toFloat64(uniqExact($jk)) AS jobs, sum(wall_s) AS wall, sum(cpu_s) AS cpu_s,
 sum(wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)) AS core_s, toFloat64(max(mem_peak_bytes)) AS peak"
row "report's SQL by pipeline, FINAL (s)" "" "$(p50 "SELECT pipeline AS g, $aggs FROM tracer.jobs FINAL
 WHERE end >= toDateTime($from) AND scheduler != 'host' GROUP BY g")" "" ""
row "report's SQL by pipeline, LIMIT 1 BY summary_id (s)" "" "$(p50 "SELECT g, $aggs FROM (SELECT
 pipeline AS g, job_id, cluster, summary_id, wall_s, cpu_s, alloc_cpus, host_cpus, mem_peak_bytes
 FROM tracer.jobs PREWHERE end >= toDateTime($from) WHERE scheduler != 'host' LIMIT 1 BY summary_id)
 GROUP BY g")" "" ""
row "report's SQL by pipeline, neither (duplicates counted) (s)" "" "$(p50 "SELECT pipeline AS g, $aggs
 FROM tracer.jobs PREWHERE end >= toDateTime($from) WHERE scheduler != 'host' GROUP BY g")" "" ""
row "report --clickhouse --by pipeline --since 30d (s)" "" \
	"$(p50_cmd "${TRACER[@]}" report --clickhouse --by pipeline --since 30d)" "" ""
if "$BUILD/tracer" tune --help >/dev/null 2>&1; then
	row "tune --pipeline $pipe --since 30d (s)" "" \
		"$(p50_cmd "${TRACER[@]}" tune --pipeline "$pipe" --since 30d)" "" ""
else
	row "tune --pipeline P --since 30d" "" "(no tune)" "" ""
fi
if "$BUILD/tracer" sweep --help >/dev/null 2>&1; then
	row "sweep --since 30d --by user (s)" "" \
		"$(p50_cmd "${TRACER[@]}" sweep --since 30d --by user)" "" ""
else
	row "sweep --since 30d --by user" "" "(no sweep)" "" ""
fi
