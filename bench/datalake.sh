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
#     ids, users and days until there are DL_JOBS, DL_STREAMS (the CPUs)
#     copies at once, merges stopped and the materialized views detached
#     meanwhile (their rows inserted directly, by their own SELECT),
#     counting the rows of every table after each round, then comparing
#     job_keys and job_use with what the views make of jobs; the merges
#     after it, and the whole generation's time;
#   - bytes on disk per table, per job row and per process row;
#   - p50 of 5 runs of every query of contrib/clickhouse/queries.sql, of
#     `tracer jobs -u USER -S now-30days` and `tracer show JOB` (root's
#     tracer, reading ClickHouse itself), of tracer.job_view for one job
#     and of the same view read by job_keys without FINAL, of the main
#     query of `tracer report --clickhouse --by pipeline` with FINAL, with
#     LIMIT 1 BY summary_id and with neither (the SQL alone), of
#     `tracer report --clickhouse --by pipeline --since 30d`, and,
#     when the tracer of BUILD has them, of `tracer tune --pipeline P
#     --since 30d` and `tracer sweep --since 30d --by G` for every group
#     (DL_SWEEP_BY: those only); the load
#     average of the machine beside each.
# DL_KEEP=1 keeps the datalake (the server's directory) when the bench
# ends, and says where; DL_REUSE=THAT_DIR starts the server on it again
# and times the reads alone (a 1M-job load takes most of an hour: its
# reads can then be timed again on an idle machine).
# Prints rows of bench/run.sh's table.  bench/run.sh runs it with
# DL_JOBS=20000 unless told otherwise (make bench's quick mode).
set -u
# "&" in a ${v/p/r} replacement is the text replaced (bash 5.2): off
shopt -u patsub_replacement 2>/dev/null
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${DL_JOBS:-1000000}
S=${DL_TEMPLATES:-20000}
R=${DL_SINK_JOBS:-2000}
PROCS=${DL_PROCS:-200}
# a small run still copies: half its jobs are templates at most
[ $((2 * S)) -le "$N" ] || S=$(((N + 1) / 2))
[ "$R" -lt "$S" ] || R=$((S / 2))
REUSE=${DL_REUSE:-}
if [ -n "$REUSE" ]; then
	TMP=$(cd "$REUSE" && pwd) && [ -f "$TMP/ch/config.xml" ] ||
		{ echo "FAIL: DL_REUSE=$REUSE: no datalake kept there (ch/config.xml)" >&2; exit 1; }
else
	TMP=$(mktemp -d "${DL_DIR:-/tmp}/tracer-bench-dl.XXXXXX")
fi
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
cleanup() {
	# the bench's own shell only, not a subshell that inherited the trap
	[ "$BASHPID" = "$$" ] || return 0
	ch_stop
	if [ -n "$REUSE" ] || [ "${DL_KEEP:-0}" = 1 ]; then
		echo "the datalake is kept in $TMP (DL_REUSE=$TMP times its reads again)" >&2
	else
		rm -rf "$TMP"
	fi
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
if [ -n "$REUSE" ]; then
	CH_DIR=$TMP/ch CH_TCP=$TCP CH_HTTP=$HTTP
else
	ch_setup "$TMP/ch" "$TCP" "$HTTP"
	# merges wait while the copies load (below): a partition may then
	# hold hundreds of parts for a while, more than the default 150 / 300
	# at which an insert is slowed / refused
	sed -i 's#</yandex>#  <merge_tree><parts_to_delay_insert>3000</parts_to_delay_insert><parts_to_throw_insert>6000</parts_to_throw_insert></merge_tree>\n</yandex>#' \
		"$TMP/ch/config.xml" || { echo "FAIL: cannot write $TMP/ch/config.xml" >&2; exit 1; }
fi
# another server on these ports would answer for ours
! ch_ping || { echo "FAIL: port $HTTP is taken (DL_TCP, DL_HTTP choose others)" >&2; exit 1; }
ch_start || exit 1
[ -n "$REUSE" ] || "${TRACER[@]}" datalake migrate --dir "$TOP/contrib/clickhouse/migrations" >/dev/null ||
	{ echo "FAIL: tracer datalake migrate" >&2; exit 1; }

# 1. the sink's way.  Jobs 0 .. R-1 through the ClickHouse sink itself
# (lib/sink_clickhouse.c, tracerd's batches back to back: the time of the
# deliveries alone); jobs R .. S-1 from files of the sink's rows (its
# conversion; generation not timed) by clickhouse-client, jobs last as
# the sink does.  Job ids are 7000000 + the job's number.
# the machine's load average over the last minute (it is shared)
load1() { cut -d' ' -f1 /proc/loadavg; }
# the CPU seconds the server has used (user and system; on a shared
# machine a measure of the work that its load does not stretch as it
# does the time)
server_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) / hz) }' "/proc/$CH_PID/stat"; }
# generate: the whole load (sections 1 and 2), when not reusing one
generate() {
	gen_t0=$(now_us)
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
	# templates kept in memory; the rows of every table are counted after
	# each round of copies, and any shortfall ends the bench.
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
		local h="s_head"
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
		echo "$out, substring($h, $prev + $plen, $HEAD + 1 - $prev - $plen), s_tail)"
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
		cols=() exprs=()
		while read -r c; do
			cols+=("$c")
			exprs+=("$(copy_expr "$c")")
		done < <(chq -q "SELECT name FROM system.columns WHERE database = 'tracer' AND table = '$t'")
		SEL[$t]=$(IFS=,; echo "${exprs[*]}")
		COLS[$t]=$(IFS=,; echo "${cols[*]}")
		# the templates of jobs hold the summary cut once into its head (the
		# places spliced) and the rest: on 18.16 here, substring() of the
		# rest cost 2.0 s of CPU per 220 MB of summaries, as much again as
		# the rest of the splice, on every copy.  Blocks of 8192 rows: an
		# INSERT takes them as they are, not gathered again into larger ones
		tcols='*'
		if [ "$t" = jobs ]; then
			tcols=""
			for c in "${cols[@]}"; do
				[ "$c" = summary ] && c="substring(summary, 1, $HEAD) AS s_head, substring(summary, $((HEAD + 1)), 1000000000) AS s_tail"
				tcols+="${tcols:+, }$c"
			done
		fi
		chq --max_block_size=8192 --min_insert_block_size_rows=8192 --min_insert_block_size_bytes=0 \
			--allow_experimental_low_cardinality_type=1 --max_memory_usage=4000000000 \
			-q "CREATE TABLE tracer.tpl_$t ENGINE = Memory AS SELECT $tcols FROM tracer.$t" ||
			{ echo "FAIL: templates of tracer.$t" >&2; exit 1; }
	done
	# The materialized views are detached while the copies load, and their
	# rows inserted into job_keys and job_use directly: the view's own SELECT
	# (as the server holds it) over the copy's columns of jobs, summary left
	# out.  Through the view, job_keys_mv's ARRAY JOIN repeats the whole
	# block, summaries included, once per key: measured on 6,240 summaries,
	# the INSERT into jobs took 14.3 s of server CPU with the views, 5.8 s
	# without (query_log).  The rows are the views' own: checked after the
	# load against the views' SELECT over every row of jobs.
	MVS=(job_keys job_use)
	# each table's view (job_use's made again by version 8 under this name)
	declare -A MVOF=([job_keys]=job_keys_mv [job_use]=job_use_v8_mv)
	declare -A MVSEL
	for v in "${MVS[@]}"; do
		MVSEL[$v]=$(chq -q "SELECT create_table_query FROM system.tables WHERE database = 'tracer' AND name = '${MVOF[$v]}' FORMAT TSVRaw" |
			sed -n 's/^CREATE MATERIALIZED VIEW .* AS SELECT /SELECT /p')
		[[ "${MVSEL[$v]}" == *"FROM tracer.jobs "* ]] || { echo "FAIL: cannot read the SELECT of tracer.${MVOF[$v]}" >&2; exit 1; }
	done
	# the copy's columns of jobs but the summary, under their own names (two
	# levels: ClickHouse substitutes an alias wherever its name appears)
	inner=() outer=()
	for c in ${COLS[jobs]//,/ }; do
		[ "$c" = summary ] && continue
		inner+=("$(copy_expr "$c") AS c__$c")
		outer+=("c__$c AS $c")
	done
	NARROW="(SELECT $(IFS=,; echo "${outer[*]}") FROM (SELECT $(IFS=,; echo "${inner[*]}") FROM tracer.tpl_jobs WHERE __W__))"
	count() { chq -q "SELECT count() FROM tracer.$1"; }
	# the rows copy K adds to table T: copy_rows T WHERE
	copy_rows() {
		case $1 in
		job_keys) chq -q "SELECT sum(length(arrayFilter(k -> k != '', [job_id, array_job_id, job, summary_id, task_name]))) FROM tracer.tpl_jobs WHERE $2" ;;
		job_use) chq -q "SELECT count() FROM tracer.tpl_jobs WHERE scheduler != 'host' AND ($2)" ;;
		*) chq -q "SELECT count() FROM tracer.tpl_$1 WHERE $2" ;;
		esac
	}
	# copy_where K: the templates copy K copies (the last stops at N jobs)
	copy_where() {
		local last=$((N - $1 * S))
		if [ "$last" -lt "$S" ]; then
			echo "summary_id IN (SELECT summary_id FROM tracer.tpl_jobs WHERE toUInt64(job_id) < $((7000000 + last)))"
		else
			echo 1
		fi
	}
	# copy_one K: every table's rows of copy K, one INSERT each, their times
	# in $TMP/took.K.  Blocks of up to 256 MB or 4M rows (fewer parts), in
	# at most 4 GB a query.
	copy_one() {
		local k=$1 t t1 where took=""
		where=$(copy_where "$k")
		for t in "${TABLES[@]}" "${MVS[@]}"; do
			t1=$(now_us)
			if [ -n "${SEL[$t]:-}" ]; then
				q="INSERT INTO tracer.$t (${COLS[$t]}) SELECT ${SEL[$t]//__K__/$k} FROM tracer.tpl_$t WHERE $where"
			else
				q="INSERT INTO tracer.$t ${MVSEL[$t]/FROM tracer.jobs /FROM ${NARROW//__W__/$where} }"
				q=${q//__K__/$k}
			fi
			chq --max_memory_usage=4000000000 --min_insert_block_size_rows=4194304 -q "$q" ||
				{ echo "FAIL: copy $k into tracer.$t" >&2; return 1; }
			took+=" $t $((($(now_us) - t1) / 1000)) ms"
		done
		echo "${took# }" >"$TMP/took.$k"
	}
	declare -A HAVE
	for t in "${TABLES[@]}" "${MVS[@]}"; do HAVE[$t]=$(count "$t"); done
	proc0=${HAVE[processes]}
	# DL_STREAMS (the CPUs) copies load at once, in rounds; merges wait
	# until the load is done (each copy's parts are written once, not merged
	# again and again while the table grows)
	STREAMS=${DL_STREAMS:-$(nproc)}
	chq -q "SYSTEM STOP MERGES" || { echo "FAIL: SYSTEM STOP MERGES" >&2; exit 1; }
	for v in "${MVS[@]}"; do
		chq -q "DETACH TABLE tracer.${MVOF[$v]}" || { echo "FAIL: DETACH TABLE tracer.${MVOF[$v]}" >&2; exit 1; }
	done
	t0=$(now_us) cpu0=$(server_cpu)
	k=1
	# DL_LOAD_S: stop copying after that many seconds and measure at the
	# size reached (the table says how many jobs that is)
	while [ "$k" -le "$copies" ]; do
		[ -z "${DL_LOAD_S:-}" ] || [ $(($(now_us) - t0)) -lt $((DL_LOAD_S * 1000000)) ] || break
		declare -A WANT=()
		for t in "${TABLES[@]}" "${MVS[@]}"; do WANT[$t]=${HAVE[$t]}; done
		pids=() round=()
		while [ "${#round[@]}" -lt "$STREAMS" ] && [ "$k" -le "$copies" ]; do
			for t in "${TABLES[@]}" "${MVS[@]}"; do
				WANT[$t]=$((WANT[$t] + $(copy_rows "$t" "$(copy_where "$k")")))
			done
			copy_one "$k" &
			pids+=($!) round+=("$k")
			k=$((k + 1))
		done
		for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: copies ${round[*]}" >&2; exit 1; }; done
		for t in "${TABLES[@]}" "${MVS[@]}"; do
			HAVE[$t]=$(count "$t")
			[ "${HAVE[$t]}" = "${WANT[$t]}" ] ||
				{ echo "FAIL: copies ${round[*]}: tracer.$t has ${HAVE[$t]} rows, not ${WANT[$t]}" >&2; exit 1; }
		done
		[ -z "${DL_PROGRESS:-}" ] || for c in "${round[@]}"; do
			echo "copy $c/$copies: $(cat "$TMP/took.$c")" >&2
		done
		[ -z "${DL_PROGRESS:-}" ] || echo "  ${HAVE[jobs]} summaries, ${HAVE[processes]} processes, $((($(now_us) - t0) / 1000000)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	done
	load_us=$(($(now_us) - t0)) load_load=$(load1) load_cpu=$(($(server_cpu) - cpu0))
	for v in "${MVS[@]}"; do
		chq -q "ATTACH TABLE tracer.${MVOF[$v]}" || { echo "FAIL: ATTACH TABLE tracer.${MVOF[$v]}" >&2; exit 1; }
	done
	chq -q "SYSTEM START MERGES" || { echo "FAIL: SYSTEM START MERGES" >&2; exit 1; }
	for t in "${TABLES[@]}"; do chq -q "DROP TABLE tracer.tpl_$t"; done
	# job_keys and job_use hold exactly the rows their views make of every
	# row of jobs (templates through the views, copies inserted directly):
	# count and a sum of hashes of the rows, compared
	for v in "${MVS[@]}"; do
		cols=$(chq -q "SELECT name FROM system.columns WHERE database = 'tracer' AND table = '$v'" | paste -sd,)
		fp="SELECT count(), sum(cityHash64($cols)) FROM"
		got=$(chq -q "$fp tracer.$v")
		want=$(chq -q "$fp (${MVSEL[$v]})")
		[ "$got" = "$want" ] || { echo "FAIL: tracer.$v has $got (rows, hash), its view makes $want" >&2; exit 1; }
	done
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
	bulk_us=$load_us
}
[ -n "$REUSE" ] || generate

# sizes once the server has merged what it will (OPTIMIZE would be
# unrealistic: a live datalake is never fully merged); queries are
# timed once no merge runs, at most DL_MERGE_WAIT (600) seconds later
# (none running twice, 2 s apart: the next merge of a level starts
# once one ends)
no_merge() { [ "$(chq -q "SELECT count() FROM system.merges")" = 0 ]; }
merges_done() { no_merge && sleep 2 && no_merge; }
t0=$(now_us)
poll_until "${DL_MERGE_WAIT:-600}" merges_done || echo "note: merges still running" >&2
merge_us=$(($(now_us) - t0)) gen_us=$(($(now_us) - ${gen_t0:-0})) gen_load=$(cut -d' ' -f1-3 /proc/loadavg)
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
[ -n "$REUSE" ] || {
row "insert, the sink itself: $sink_sum summaries (per s)" "" "$((sink_sum * 1000000 / sink_us))" "$sink_load" ""
row "insert, clickhouse-client: $cli_rows summaries (per s)" "" "$((cli_rows * 1000000 / cli_us))" "$cli_load" ""
row "bulk load (copies): jobs per s" "" "$(((njobs - S) * 1000000 / bulk_us))" "" ""
row "  summaries per s" "" "$(((jobs_rows - sink_sum - cli_rows) * 1000000 / bulk_us))" "" ""
row "  process rows per s" "" "$(((proc_rows - proc0) * 1000000 / bulk_us))" "" ""
row "  load time (s)" "" "$((bulk_us / 1000000))" "$load_load" ""
row "  server CPU during the load (s)" "" "$load_cpu" "" ""
row "  merges after the load (s)" "" "$((merge_us / 1000000))" "" ""
row "generation in all, merges included (s)" "" "$((gen_us / 1000000))" "${gen_load%% *}" ""
}
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
read -r cl job <<<"$(chq -q "SELECT cluster, job_id FROM tracer.jobs WHERE alloc_nodes > 1 LIMIT 1 OFFSET $((N >= 100000 ? 1000 : 0)) FORMAT TSV")"
pipe=$(chq -q "SELECT pipeline FROM tracer.jobs GROUP BY pipeline ORDER BY count() DESC LIMIT 1")
row "jobs -u $user -S now-30days (s)" "" \
	"$(p50_cmd "${TRACER[@]}" jobs -u "$user" -S now-30days)" "$(load1)" ""
row "  ... summaries it lists" "" \
	"$("${TRACER[@]}" jobs -u "$user" -S now-30days 2>/dev/null | grep -c "^ *[0-9a-z]")" "" ""
row "show $job (a 2-node job, 3 summaries) (s)" "" "$(p50_cmd "${TRACER[@]}" show "$job")" "$(load1)" ""
row "show $job --brief (s)" "" "$(p50_cmd "${TRACER[@]}" show --brief "$job")" "$(load1)" ""
row "tracer.job_view, one (cluster, job_id) (s)" "" \
	"$(p50 "SELECT * FROM tracer.job_view WHERE cluster = '$cl' AND job_id = '$job'")" "$(load1)" ""
# version 6's view (no FINAL) with the WHERE pushed into it: 18.16 does
# it only when told
row "  ... enable_optimize_predicate_expression = 1 (s)" "" \
	"$(p50 "SELECT * FROM tracer.job_view WHERE cluster = '$cl' AND job_id = '$job' SETTINGS enable_optimize_predicate_expression = 1")" "$(load1)" ""
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
	for by in ${DL_SWEEP_BY:-user account partition pipeline host tool}; do
		row "sweep --since 30d --by $by (s)" "" \
			"$(p50_cmd "${TRACER[@]}" sweep --since 30d --by "$by")" "$(load1)" ""
	done
else
	row "sweep --since 30d --by user" "" "(no sweep)" "" ""
fi
