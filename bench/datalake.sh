#!/bin/bash
# datalake.sh BUILD - the datalake at scale (bench/run.sh part
# "datalake"): DL_JOBS (1,000,000) synthetic Slurm jobs of a site
# (bench/datalake_gen.c: 10,000 users in 20 accounts, 5 partitions, 100
# pipelines of 5-10 steps, one job in eight on two nodes with three
# summaries, up to DL_PROCS (200, tracerd's keep_procs) processes in each
# summary's tree, about 100 a job), turned into rows by the sink's own
# conversion and loaded into Debian's clickhouse-server on loopback
# ports DL_TCP/DL_HTTP (18901/18924; data in a temporary directory,
# DL_DIR to put it elsewhere).  Measures:
#   - the insert rate of the ClickHouse sink itself (sink_deliver,
#     tracerd's batches, back to back) over the first DL_SINK_JOBS
#     (2,000) jobs, and of clickhouse-client (JSONEachRow in blocks of
#     8192 rows, of jobs 512, one insert per table, jobs last) over the rest of the
#     DL_TEMPLATES (20,000) template jobs;
#   - the bulk load of the rest: ClickHouse copies the templates with new
#     ids, users and days until there are DL_JOBS, counting the rows of
#     every table after each copy;
#   - bytes on disk per table, per job row and per process row;
#   - p50 of 5 runs of every query of contrib/clickhouse/queries.sql, of
#     `tracer jobs -u USER -S now-30days` and `tracer show JOB` (root's
#     tracer, reading ClickHouse itself), of tracer.job_view for one job
#     and of the same view read by job_keys without FINAL, of the main
#     query of `tracer report --clickhouse --by pipeline` with FINAL, with
#     LIMIT 1 BY summary_id and with neither (the SQL alone), of
#     `tracer report --clickhouse --by pipeline --since 30d`, and,
#     when the tracer of BUILD has them, of `tracer tune --pipeline P
#     --since 30d` and `tracer sweep --since 30d --by user`; the load
#     average of the machine beside each.
# Prints rows of bench/run.sh's table.  bench/run.sh runs it with
# DL_JOBS=20000 unless told otherwise (make bench's quick mode).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${DL_JOBS:-1000000}
S=${DL_TEMPLATES:-20000}
R=${DL_SINK_JOBS:-2000}
PROCS=${DL_PROCS:-200}
# a small run still copies: half its jobs are templates at most
[ $((2 * S)) -le "$N" ] || S=$(((N + 1) / 2))
[ "$R" -lt "$S" ] || R=$((S / 2))
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

# 1. the sink's way.  Jobs 0 .. R-1 through the ClickHouse sink itself
# (lib/sink_clickhouse.c, tracerd's batches back to back: the time of the
# deliveries alone); jobs R .. S-1 from files of the sink's rows (its
# conversion; generation not timed) by clickhouse-client, jobs last as
# the sink does.  Job ids are 7000000 + the job's number.
# the machine's load average over the last minute (it is shared)
load1() { cut -d' ' -f1 /proc/loadavg; }
read -r sink_sum sink_us <<<"$("$TMP/gen" sink "$CHURL" 0 "$R" "$PROCS")"
[ -n "$sink_us" ] || { echo "FAIL: datalake_gen sink" >&2; exit 1; }
sink_load=$(load1)
mkdir "$TMP/sink"
"$TMP/gen" "$R" "$((S - R))" "$PROCS" "$TMP/sink/jobs" "$TMP/sink/tools" "$TMP/sink/processes" \
	"$TMP/sink/flags" || { echo "FAIL: datalake_gen" >&2; exit 1; }
cli_rows=$(wc -l <"$TMP/sink/jobs")
t0=$(now_us)
# blocks of 8192 rows, of jobs 512 and at most 32 MiB: the summaries are
# up to 94 KB, and the view's ARRAY JOIN repeats the whole block (summary
# included) once per key, so that a block of the server's default 256 MB
# passes its 2 GB per query (the sink itself sends at most 16 MiB an
# insert)
JOBS_BLOCK=(--max_insert_block_size=512 --min_insert_block_size_rows=512
	--min_insert_block_size_bytes=$((32 << 20)))
for t in tools processes flags jobs; do
	bs=(--max_insert_block_size=8192)
	[ "$t" = jobs ] && bs=("${JOBS_BLOCK[@]}")
	chq "${bs[@]}" -q "INSERT INTO tracer.$t FORMAT JSONEachRow" <"$TMP/sink/$t" ||
		{ echo "FAIL: insert into tracer.$t" >&2; exit 1; }
done
cli_us=$(($(now_us) - t0)) cli_load=$(load1)
rm -rf "$TMP/sink"

# 2. the bulk load: the S jobs are the templates of the rest.  ClickHouse
# copies them (INSERT ... SELECT, no parsing, the materialized view
# filling job_keys as for any insert) as many times as it takes, each
# copy with new job ids and summary ids, its users other than the 100
# heavy ones moved to others of the same account, and moved to another
# day of the last 35 (in the columns and in the summary's start_ns and
# end_ns), so that pipelines, runs, inputs and states keep their shape;
# the summary's other times stay the template's.  (ClickHouse 18.16's
# replaceAll takes constant patterns only: the summary is spliced at the
# places datalake_gen writes its ids, user, uid and times, each as long
# as what it replaces.)  Every copy is one INSERT per table, read from
# templates kept in memory in blocks of 1024 rows so that no query nears
# the server's memory limit; the rows of every table are counted after
# each copy, and any shortfall ends the bench.
NOW=$(( $(date +%s) / 86400 * 86400 )) WIN=$((35 * 86400))
# the template's user number, and copy __K__'s: heavy users (u0000-u0099)
# stay, the others move by 140 a copy within u0100-u9999 (a multiple of
# the 20 accounts: account = user % 20 stays)
UN="toUInt32(substring(toString(user), 2))"
NU="if($UN < 100, $UN, 100 + ($UN - 100 + __K__ * 140) % 9900)"
USER_EXPR="concat('u', substring(toString(10000 + $NU), 2))"
# splice PATTERN LENGTH EXPR ...: the summary with the LENGTH characters
# after each PATTERN's first place replaced by EXPR (in the order they
# appear in the summary).  They all lie in its first HEAD bytes (checked
# below): only that head is cut at the places, the rest is appended
# whole, since on 18.16 a substring at a place that varies by row costs
# about a second per 10 MB (the summaries are 40 KB) where one at a
# constant place is a copy.
HEAD=1024
splice() {
	local h="substring(summary, 1, $HEAD)"
	local out="concat(" prev="" plen="" p
	while [ $# -gt 0 ]; do
		p="(position($h, '$1') + ${#1})"
		if [ -z "$prev" ]; then
			out+="substring($h, 1, $p - 1), $3"
		else
			out+=", substring($h, $prev + $plen, $p - $prev - $plen), $3"
		fi
		prev=$p plen=$2
		shift 3
	done
	echo "$out, substring($h, $prev + $plen, $HEAD + 1 - $prev - $plen), substring(summary, $((HEAD + 1)), 1000000000))"
}
copy_expr() { # copy_expr COLUMN: the column of copy __K__ of a template row
	local d="(toInt64(toUInt32(end)) - ($NOW - (($NOW - toInt64(toUInt32(end)) + __K__ * 104729) % $WIN)))"
	# the templates' end in 0000 (datalake_gen), copy K's in K: no copy
	# meets a template or another copy
	local sid="concat(substring(summary_id, 1, 28), lower(substring(hex(toUInt32(65536 + __K__)), 3, 4)))"
	local job="toString(toUInt64(job_id) + __K__ * $S)"
	case $1 in
	summary_id) echo "$sid" ;;
	job_id) echo "if(job_id = '', '', $job)" ;;
	job) echo "concat(substring(job, 1, position(job, ':')), $job, substring(job, position(job, ':') + 1 + length(job_id)))" ;;
	user) echo "$USER_EXPR" ;;
	uid) echo "100000 + $NU" ;;
	end | start | submit | job_start | first_start | last_end)
		echo "if(toUInt32($1) = 0, $1, toDateTime(toInt64(toUInt32($1)) - $d))" ;;
	end_ns | start_ns) echo "toUInt64(toInt64($1) - $d * 1000000000)" ;;
	start_ms) echo "toUInt64(toInt64($1) - $d * 1000)" ;;
	summary)
		splice '"summary_id":"' 32 "$sid" '"job":"slurm:' "length(job_id)" "$job" \
			'"start_ns":' 19 "toString(toUInt64(toInt64(start_ns) - $d * 1000000000))" \
			'"end_ns":' 19 "toString(toUInt64(toInt64(end_ns) - $d * 1000000000))" \
			'"job_id":"' "length(job_id)" "$job" '"user":"' 5 "$USER_EXPR" \
			'"uid":' 6 "toString(100000 + $NU)" ;;
	*) echo "$1" ;;
	esac
}
copies=$(((N + S - 1) / S - 1))
# job ids keep their 7 digits: the summaries are spliced in place
[ "$N" -lt 3000000 ] || { echo "FAIL: DL_JOBS must be under 3000000" >&2; exit 1; }
declare -A SEL COLS
# every place spliced lies in the head, whole (uid is the last)
late=$(chq -q "SELECT count() FROM tracer.jobs WHERE position(substring(summary, 1, $HEAD), '\"uid\":') = 0 OR position(summary, '\"uid\":') + 12 > $HEAD")
[ "$late" = 0 ] || { echo "FAIL: $late summaries have their ids beyond byte $HEAD" >&2; exit 1; }
for t in "${TABLES[@]}"; do
	chq --max_block_size=1024 --min_insert_block_size_rows=1024 --min_insert_block_size_bytes=0 \
		--allow_experimental_low_cardinality_type=1 \
		-q "CREATE TABLE tracer.tpl_$t ENGINE = Memory AS SELECT * FROM tracer.$t" ||
		{ echo "FAIL: templates of tracer.$t" >&2; exit 1; }
	cols=() exprs=()
	while read -r c; do
		cols+=("$c")
		exprs+=("$(copy_expr "$c")")
	done < <(chq -q "SELECT name FROM system.columns WHERE database = 'tracer' AND table = '$t'")
	SEL[$t]=$(IFS=,; echo "${exprs[*]}")
	COLS[$t]=$(IFS=,; echo "${cols[*]}")
done
count() { chq -q "SELECT count() FROM tracer.$1"; }
# the job_keys rows the view makes of the template rows of jobs selected by $1
keys_of() { chq -q "SELECT sum(length(arrayFilter(k -> k != '', [job_id, array_job_id, job, summary_id, task_name]))) FROM tracer.tpl_jobs WHERE $1"; }
declare -A HAVE
for t in "${TABLES[@]}" job_keys; do HAVE[$t]=$(count "$t"); done
proc0=${HAVE[processes]}
t0=$(now_us)
# DL_LOAD_S: stop copying after that many seconds and measure at the
# size reached (the table says how many jobs that is)
for k in $(seq 1 "$copies"); do
	[ -z "${DL_LOAD_S:-}" ] || [ $(($(now_us) - t0)) -lt $((DL_LOAD_S * 1000000)) ] || break
	took=""
	# the last copy stops at N jobs
	last=$((N - k * S))
	where="1"
	[ "$last" -lt "$S" ] && where="summary_id IN (SELECT summary_id FROM tracer.tpl_jobs WHERE toUInt64(job_id) < $((7000000 + last)))"
	for t in "${TABLES[@]}"; do
		want=$((HAVE[$t] + $(chq -q "SELECT count() FROM tracer.tpl_$t WHERE $where")))
		[ "$t" = jobs ] && want_keys=$((HAVE[job_keys] + $(keys_of "$where")))
		t1=$(now_us)
		bs=()
		[ "$t" = jobs ] && bs=("${JOBS_BLOCK[@]}")
		chq "${bs[@]}" -q "INSERT INTO tracer.$t (${COLS[$t]}) SELECT ${SEL[$t]//__K__/$k} FROM tracer.tpl_$t WHERE $where" ||
			{ echo "FAIL: copy $k into tracer.$t" >&2; exit 1; }
		took+=" $t $((($(now_us) - t1) / 1000)) ms"
		HAVE[$t]=$(count "$t")
		[ "${HAVE[$t]}" = "$want" ] ||
			{ echo "FAIL: copy $k: tracer.$t has ${HAVE[$t]} rows, not $want" >&2; exit 1; }
	done
	HAVE[job_keys]=$(count job_keys)
	[ "${HAVE[job_keys]}" = "$want_keys" ] ||
		{ echo "FAIL: copy $k: tracer.job_keys has ${HAVE[job_keys]} rows, not $want_keys" >&2; exit 1; }
	[ -z "${DL_PROGRESS:-}" ] || echo "copy $k/$copies: ${HAVE[jobs]} summaries, ${HAVE[processes]} processes, $((($(now_us) - t0) / 1000000)) s (${took# }), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
for t in "${TABLES[@]}"; do chq -q "DROP TABLE tracer.tpl_$t"; done
# the copies agree with themselves: every summary's text names the ids,
# user, uid and end of its row, account = user % 20 holds, and the rows
# of the other tables carry their summary's user and end.  Reads every
# summary: on by default up to 100,000 jobs (DL_CHECK=0/1 decides).
if [ "${DL_CHECK:-$((N <= 100000))}" = 1 ]; then
	bad=$(chq -q "SELECT countIf(visitParamExtractString(summary, 'summary_id') != summary_id OR visitParamExtractString(summary, 'user') != toString(user) OR visitParamExtractUInt(summary, 'uid') != uid OR visitParamExtractString(summary, 'job_id') != job_id OR visitParamExtractString(summary, 'job') != job OR intDiv(visitParamExtractUInt(summary, 'end_ns'), 1000000000) != toUInt32(end) OR toUInt32(substring(toString(user), 2)) % 20 != toUInt32(substring(toString(account), 5))) FROM tracer.jobs")
	for t in tools processes flags job_keys; do
		bad=$((bad + $(chq -q "SELECT countIf(toString(user) != ju OR end != je) FROM tracer.$t ANY LEFT JOIN (SELECT summary_id, toString(user) AS ju, end AS je FROM tracer.jobs) USING summary_id")))
	done
	[ "$bad" = 0 ] || { echo "FAIL: $bad copied rows disagree with their summaries" >&2; exit 1; }
fi
bulk_us=$(($(now_us) - t0))

# sizes once the server has merged what it will (OPTIMIZE would be
# unrealistic: a live datalake is never fully merged); queries are
# timed once no merge runs, at most DL_MERGE_WAIT (600) seconds later
merges_done() { [ "$(chq -q "SELECT count() FROM system.merges")" = 0 ]; }
poll_until "${DL_MERGE_WAIT:-600}" merges_done || echo "note: merges still running" >&2
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
row "measure" "" "value" "load 1 min" ""
row "--------------------------------------------------" "------------" "------------" "--------" "----------"
row "insert, the sink itself: $sink_sum summaries (per s)" "" "$((sink_sum * 1000000 / sink_us))" "$sink_load" ""
row "insert, clickhouse-client: $cli_rows summaries (per s)" "" "$((cli_rows * 1000000 / cli_us))" "$cli_load" ""
row "bulk load (copies): jobs per s" "" "$(((njobs - S) * 1000000 / bulk_us))" "" ""
row "  summaries per s" "" "$(((jobs_rows - sink_sum - cli_rows) * 1000000 / bulk_us))" "" ""
row "  process rows per s" "" "$(((proc_rows - proc0) * 1000000 / bulk_us))" "" ""
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
	row "queries.sql $n: $(cut -c1-36 "$TMP/title.$n") (s)" "" "$(p50 "$(cat "$f")")" "$(load1)" ""
done
user=$(chq -q "SELECT user FROM tracer.jobs GROUP BY user ORDER BY count() DESC LIMIT 1")
read -r cl job <<<"$(chq -q "SELECT cluster, job_id FROM tracer.jobs WHERE alloc_nodes > 1 LIMIT 1 OFFSET 1000 FORMAT TSV")"
pipe=$(chq -q "SELECT pipeline FROM tracer.jobs GROUP BY pipeline ORDER BY count() DESC LIMIT 1")
row "jobs -u $user -S now-30days (s)" "" \
	"$(p50_cmd "${TRACER[@]}" jobs -u "$user" -S now-30days)" "$(load1)" ""
row "  ... summaries it lists" "" \
	"$("${TRACER[@]}" jobs -u "$user" -S now-30days 2>/dev/null | grep -c "^ *[0-9a-z]")" "" ""
row "show $job (a 2-node job, 3 summaries) (s)" "" "$(p50_cmd "${TRACER[@]}" show "$job")" "$(load1)" ""
row "show $job --brief (s)" "" "$(p50_cmd "${TRACER[@]}" show --brief "$job")" "$(load1)" ""
row "tracer.job_view, one (cluster, job_id) (s)" "" \
	"$(p50 "SELECT * FROM tracer.job_view WHERE cluster = '$cl' AND job_id = '$job'")" "$(load1)" ""
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
row "one job's view by job_keys, no FINAL (s)" "" "$(p50 "$one_view")" "$(load1)" ""
# tracer report --clickhouse --by pipeline's main query before (FINAL)
# and now (LIMIT 1 BY summary_id), the SQL alone
from=$(($(date +%s) - 30 * 86400))
jk="if(job_id != '', concat(cluster, '/', job_id), summary_id)"
aggs="toFloat64(uniqExact($jk)) AS jobs, sum(wall_s) AS wall, sum(cpu_s) AS cpu_s,
 sum(wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)) AS core_s, toFloat64(max(mem_peak_bytes)) AS peak"
row "report's SQL by pipeline, FINAL (s)" "" "$(p50 "SELECT pipeline AS g, $aggs FROM tracer.jobs FINAL
 WHERE end >= toDateTime($from) AND scheduler != 'host' GROUP BY g")" "$(load1)" ""
row "report's SQL by pipeline, LIMIT 1 BY summary_id (s)" "" "$(p50 "SELECT g, $aggs FROM (SELECT
 pipeline AS g, job_id, cluster, summary_id, wall_s, cpu_s, alloc_cpus, host_cpus, mem_peak_bytes
 FROM tracer.jobs PREWHERE end >= toDateTime($from) WHERE scheduler != 'host' LIMIT 1 BY summary_id)
 GROUP BY g")" "$(load1)" ""
row "report's SQL by pipeline, neither (duplicates counted) (s)" "" "$(p50 "SELECT pipeline AS g, $aggs
 FROM tracer.jobs PREWHERE end >= toDateTime($from) WHERE scheduler != 'host' GROUP BY g")" "$(load1)" ""
row "report --clickhouse --by pipeline --since 30d (s)" "" \
	"$(p50_cmd "${TRACER[@]}" report --clickhouse --by pipeline --since 30d)" "$(load1)" ""
if "$BUILD/tracer" tune --help >/dev/null 2>&1; then
	row "tune --pipeline $pipe --since 30d (s)" "" \
		"$(p50_cmd "${TRACER[@]}" tune --pipeline "$pipe" --since 30d)" "$(load1)" ""
else
	row "tune --pipeline P --since 30d" "" "(no tune)" "" ""
fi
if "$BUILD/tracer" sweep --help >/dev/null 2>&1; then
	row "sweep --since 30d --by user (s)" "" \
		"$(p50_cmd "${TRACER[@]}" sweep --since 30d --by user)" "$(load1)" ""
else
	row "sweep --since 30d --by user" "" "(no sweep)" "" ""
fi
