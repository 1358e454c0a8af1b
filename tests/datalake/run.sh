#!/bin/bash
# run.sh BUILD - the datalake's schema versions on a real ClickHouse
# (Debian's 18.16, data in a temporary directory, started and stopped by
# pid): a version 1 datalake made before versions were recorded takes
# tracerd's rows, `tracer datalake migrate` brings it to version 2 with
# no row lost, new rows carry the v2 columns and the whole summary,
# tracer.job_view has one row per (cluster, job_id), migrating again does
# nothing; version 3 then re-sorts tracer.jobs by user and end with no
# row lost, fills tracer.job_keys for the old rows and the new, and
# `tracer show JOB` reads by it (and without it, from version 2);
# version 4 adds tracer.job_use (backfilled, filled on insert) and
# conc_p95;
# version 5 adds tracer.idle_hosts, and version 6 redefines
# tracer.job_view without FINAL (the same answers, a summary delivered
# twice counted once, a WHERE on one job pushed in); version 7 adds the
# node increments (the old rows backfilled per node, their originals
# deleted, the same sweep as the old rows' fold; a real tracerd's steps
# of one job carry increments that sum to the node's fold, the same
# sweep, a duplicate counted once, old and new rows mixed exactly, an
# insert whose answer a relay loses not made again); version 8 adds
# each summary's tools to job_use (the old rows copied with theirs from
# tracer.tools, the originals deleted; the sweep's answers unchanged); a
# tracerd facing an unknown schema version inserts nothing, keeps its
# summaries spooled and says why in its status.
# Needs root (BPF); run under the services lock.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-dl.XXXXXX)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
MIG=$TOP/contrib/clickhouse/migrations
MIG2=$TMP/migrations-v2 # versions 1 and 2 only
MIG3=$TMP/migrations-v3 # versions 1 to 3
MIG4=$TMP/migrations-v4 # versions 1 to 4
MIG6=$TMP/migrations-v6 # versions 1 to 6
MIG7=$TMP/migrations-v7 # versions 1 to 7
CH_TCP=18801 CH_HTTP=18824

cleanup() {
	[ -n "${RELAY_PID:-}" ] && kill "$RELAY_PID" 2>/dev/null
	stop_tracerd
	ch_stop
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
need_commands python3
need_built tracerd tracer

CHURL="http://127.0.0.1:$CH_HTTP/"
dl() { "$BUILD/tracer" -o clickhouse_url="$CHURL" datalake "$@"; }
q() { clickhouse-client --port "$CH_TCP" -q "$1"; }
# step CLUSTER JOBID STEPID: one step of a Slurm job, a few processes
step() {
	python3 "$TOP/tests/datalake/step.py" "$TRACERD_SOCK" "$1" "$2" "$3" -- \
		/bin/sh -c '/bin/true; /bin/echo x >/dev/null' || fail "step $1/$2.$3 did not run"
}
# local N: N `tracer run` jobs (no job_id)
local_jobs() {
	for i in $(seq 1 "$1"); do
		tr_cli -o client_timeout_ms=2000 run --name "local-$i" --pipeline dlsteps -- /bin/true ||
			fail "local job $i did not run"
	done
}
rows_are() { [ "$(q "SELECT count() FROM tracer.jobs FINAL")" = "$1" ]; }
# migrate_to DIR PREV FILE...: `tracer datalake migrate --dir DIR` exits 0
# having applied FILE... (NNN_vN.sql) and not PREV, the version before;
# schema_version then records the last FILE's version
migrate_to() {
	local dir=$1 prev=$2 out rc f v applied=""
	shift 2
	out=$TMP/migrate.${1%.sql}.out
	dl migrate --dir "$dir" >"$out" 2>&1
	rc=$?
	sed 's/^/    /' "$out"
	for f; do applied+=" && grep -q 'applying $f' '$out'"; done
	check "migrate applies $(echo "$@" | sed 's/ / and /g') only and exits 0" \
		sh -c "[ $rc = 0 ]$applied && ! grep -q '$prev' '$out'"
	v=${!#}
	v=${v%.sql}
	v=${v##*_v}
	check "schema_version records version $v" test "$(q "SELECT max(version) FROM tracer.schema_version")" = "$v"
}

mkdir -p "$MIG2" "$MIG3" "$MIG4" "$MIG6" "$MIG7" && cp "$MIG/001_v1.sql" "$MIG/002_v2.sql" "$MIG2/" &&
	cp "$MIG"/00[1-6]_v*.sql "$MIG6/" && cp "$MIG"/00[1-7]_v*.sql "$MIG7/" &&
	cp "$MIG/001_v1.sql" "$MIG/002_v2.sql" "$MIG/003_v3.sql" "$MIG3/" &&
	cp "$MIG/001_v1.sql" "$MIG/002_v2.sql" "$MIG/003_v3.sql" "$MIG/004_v4.sql" "$MIG4/" || exit 1
ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP"
check "the ClickHouse server is Debian's 18.16" ch_is_debian_1816

echo "== a version 1 datalake, made before versions were recorded"
check "001_v1.sql loads with clickhouse-client --multiquery" \
	sh -c "clickhouse-client --port $CH_TCP --multiquery < '$MIG/001_v1.sql'"
q "DROP TABLE tracer.schema_version"
says() { local pat=$1; shift; "$@" 2>&1 | grep -q -- "$pat"; }
check "tracer datalake status: schema version 1" says '^schema version 1 ' dl status
start_tracerd v1 -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 || exit 1
step c1 1001 0; step c1 1001 1; step c1 1002 0
local_jobs 2
wait_until 60 "5 rows in tracer.jobs FINAL (version 1)" rows_are 5 && pass "tracerd inserts into version 1"
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/v1.ids"

echo "== tracer datalake migrate"
check "--dry-run prints 002_v2.sql's statements" says 'ALTER TABLE tracer.jobs' dl migrate --dry-run --dir "$MIG2"
check "--dry-run changed nothing (no column state)" \
	test "$(q "SELECT count() FROM system.columns WHERE database = 'tracer' AND table = 'jobs' AND name = 'state'")" = 0
migrate_to "$MIG2" 001_v1 002_v2.sql
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/v2.ids"
check "no row lost: the 5 version 1 rows are there" cmp -s "$TMP/v1.ids" "$TMP/v2.ids"
check "old rows read the new columns' defaults" test "$(q "SELECT count() FROM tracer.jobs WHERE summary = '' AND state = ''")" = 5

echo "== version 2 rows"
step c1 1001 2; step c1 1003 0; step c1 1003 1
local_jobs 1
wait_until 60 "9 rows in tracer.jobs FINAL" rows_are 9 && pass "tracerd inserts into version 2 (the same tracerd)"
q "SELECT summary_id, state, job_id, summary FROM tracer.jobs FINAL WHERE summary != '' FORMAT JSONEachRow" >"$TMP/v2.rows"
check "the 4 new rows have state and summary; summary is the row's summary, valid, as the file sink has it" \
	python3 - "$TMP/v2.rows" "$TRACERD_FILE" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
file = {json.loads(l)["summary_id"]: l.rstrip("\n") for l in open(sys.argv[2])}
assert len(rows) == 4, f"{len(rows)} rows with a summary"
for r in rows:
    s = json.loads(r["summary"])
    assert s["summary_id"] == r["summary_id"], (s["summary_id"], r["summary_id"])
    assert r["state"] == s["state"] == "COMPLETED", r["state"]
    assert r["job_id"] == s["identity"].get("job_id", ""), r["job_id"]
    assert r["summary"] == file[r["summary_id"]], "summary differs from the file sink's line"
PY
check "tools rows carry cluster, job_id and step_id" \
	test "$(q "SELECT count() FROM tracer.tools FINAL WHERE cluster = 'c1' AND job_id = '1003' AND step_id = '1'")" -gt 0
q "SELECT cluster, job_id, summaries, nodes, state FROM tracer.job_view ORDER BY job_id FORMAT TSV" >"$TMP/view"
sed 's/^/    /' "$TMP/view"
check "job_view: one row per (cluster, job_id), its steps counted, the worst state (none for v1 rows)" \
	sh -c "printf 'c1\t1001\t3\t1\tCOMPLETED\nc1\t1002\t1\t1\t\nc1\t1003\t2\t1\tCOMPLETED\n' | cmp -s - '$TMP/view'"
check "job_view: CPU is the sum of the job's steps" \
	test "$(q "SELECT round(v.cpu_s - s.cpu, 9) FROM tracer.job_view AS v ANY INNER JOIN (SELECT cluster, job_id, sum(cpu_s) AS cpu FROM tracer.jobs FINAL GROUP BY cluster, job_id) AS s USING (cluster, job_id) WHERE job_id = '1001'")" = 0
check "the summaries are valid against docs/summary.schema.json" \
	python3 "$TOP/tests/validate_summary.py" --min 9 "$TRACERD_FILE"

echo "== migrate again: nothing to do"
cols=$(q "SELECT count() FROM system.columns WHERE database = 'tracer'")
dl migrate --dir "$MIG2" >"$TMP/again.out" 2>&1
rc=$?
check "a second migrate exits 0 and says up to date" sh -c "[ $rc = 0 ] && grep -q 'up to date: version 2' '$TMP/again.out'"
check "and changes nothing: the same columns, version 2 recorded once" \
	test "$cols $(q "SELECT count() FROM tracer.schema_version FINAL WHERE version = 2")" = \
	"$(q "SELECT count() FROM system.columns WHERE database = 'tracer'") 1"
stop_tracerd

echo "== version 3: jobs sorted by user and end, job_keys"
lake() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/none.ndjson" -o datalake=clickhouse -o clickhouse_url="$CHURL" "$@"; }
# view_is JOB STEPS: tracer show JOB --json of root, from the datalake, is
# the job rolled up over STEPS summaries
view_is() {
	lake show --json "$1" | python3 -c '
import json, sys
v = json.load(sys.stdin)
i = v["identity"]
steps = len(v.get("steps", [])) or 1
assert (i["job_id"], steps) == (sys.argv[1], int(sys.argv[2])), (i["job_id"], steps)' "$1" "$2"
}
check "version 2: tracer show 1003 reads without job_keys (2 steps)" view_is 1003 2
# report --clickhouse counts flags from each jobs row's flag_ids (version 3)
report_says() { local o; o=$(lake report --clickhouse --since 30d --by user 2>&1) && { echo "$o"; return 1; }
	grep -q "$1" <<<"$o" || { echo "$o"; return 1; }; }
check "version 2: tracer report --clickhouse says to migrate (version 3's flag_ids)" \
	report_says 'no tracer.jobs.flag_ids of schema version 3: run tracer datalake migrate'
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/pre3.ids"
migrate_to "$MIG3" 002_v2 003_v3.sql
check "version 3: tracer report --clickhouse answers" sh -c "'$BUILD/tracer' -o datalake=clickhouse -o clickhouse_url='$CHURL' report --clickhouse --since 30d --by user >/dev/null"
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/v3.ids"
check "no row lost: the 9 rows of version 2 are there" cmp -s "$TMP/pre3.ids" "$TMP/v3.ids"
check "tracer.jobs is sorted by user, then end" \
	test "$(q "SELECT sorting_key FROM system.tables WHERE database = 'tracer' AND name = 'jobs'")" = "user, end, summary_id"
check "the copy is gone (no jobs_v2)" \
	test "$(q "SELECT count() FROM system.tables WHERE database = 'tracer' AND name = 'jobs_v2'")" = 0
check "job_keys holds the old rows: job 1001 by its id, 3 summaries" \
	test "$(q "SELECT count() FROM tracer.job_keys FINAL WHERE key = '1001' AND cluster = 'c1'")" = 3
check "old rows read the new columns' defaults (flag_ids [], alloc_time_limit_s NULL)" \
	test "$(q "SELECT count() FROM tracer.jobs WHERE empty(flag_ids) AND alloc_time_limit_s IS NULL")" = 9
check "version 3: tracer show 1003 by job_keys (2 steps)" view_is 1003 2
start_tracerd v3 -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 || exit 1
step c1 1004 0; step c1 1004 1
rows_1004() { [ "$(q "SELECT count() FROM tracer.job_keys FINAL WHERE key = '1004'")" = 2 ]; }
wait_until 60 "job 1004's 2 summaries in job_keys (the view fills it on insert)" rows_1004 &&
	pass "tracerd inserts into version 3; job_keys follows"
check "version 3: tracer show 1004 (2 steps)" view_is 1004 2
step_is() { lake show --json "$1" | python3 -c 'import json,sys; i=json.load(sys.stdin)["identity"]; sys.exit(0 if (i["job_id"], i["step_id"]) == tuple(sys.argv[1:]) else 1)' "$2" "$3"; }
check "tracer show 1004.1: that step" step_is 1004.1 1004 1
check "the summaries are valid against docs/summary.schema.json" \
	python3 "$TOP/tests/validate_summary.py" --min 2 "$TRACERD_FILE"
stop_tracerd

echo "== version 4: job_use for the sweep, conc_p95"
sweep_says() { local o; o=$(lake sweep --since 30d 2>&1); grep -q "$1" <<<"$o" || { echo "$o"; return 1; }; }
check "version 3: tracer sweep says the datalake must be migrated" \
	sweep_says 'no tracer.job_use of schema version 8: run tracer datalake migrate'
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/pre4.ids"
migrate_to "$MIG4" 003_v3 004_v4.sql
q "SELECT summary_id FROM tracer.jobs FINAL ORDER BY summary_id" >"$TMP/v4.ids"
check "no row lost: the 11 rows of version 3 are there" \
	sh -c "cmp -s '$TMP/pre4.ids' '$TMP/v4.ids' && [ \$(wc -l <'$TMP/v4.ids') = 11 ]"
use_rows() { q "SELECT count() FROM tracer.job_use FINAL"; }
check "job_use holds a row per old summary (backfilled)" \
	test "$(use_rows)" = "$(q "SELECT count() FROM tracer.jobs FINAL WHERE scheduler != 'host'")"
check "job_use: job 1001's 3 summaries under one job hash, on one node" \
	test "$(q "SELECT uniqExact(jh), uniqExact(nh), count() FROM tracer.job_use FINAL WHERE jk = '1001'")" = "$(printf '1\t1\t3')"
check "old rows read conc_p95 as 0" test "$(q "SELECT count() FROM tracer.jobs WHERE conc_p95 != 0")" = 0
# (this tracer's sweep needs version 8: checked there)
check "version 4: tracer sweep says version 8 is needed" \
	sweep_says 'no tracer.job_use of schema version 8: run tracer datalake migrate'
start_tracerd v4 -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 || exit 1
step c1 1005 0; step c1 1005 1
rows_1005() { [ "$(q "SELECT count() FROM tracer.job_use FINAL WHERE jk = '1005'")" = 2 ]; }
wait_until 60 "job 1005's 2 summaries in job_use (the view fills it on insert)" rows_1005 &&
	pass "tracerd inserts into version 4; job_use follows"
conc_is_summary() { # conc_p95 is the summary's allocation_use.concurrency.p95 (0 without)
	q "SELECT conc_p95, summary FROM tracer.jobs FINAL WHERE job_id = '1005' FORMAT JSONEachRow" |
		python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert len(rows) == 2, rows
for r in rows:
    want = json.loads(r["summary"]).get("allocation_use", {}).get("concurrency", {}).get("p95", 0)
    assert int(r["conc_p95"]) == want, (r["conc_p95"], want)'
}
check "conc_p95 is the summary's sampled concurrency p95" conc_is_summary
# a retried delivery: the same summary inserted again (a second part)
q "INSERT INTO tracer.jobs SELECT * FROM tracer.jobs WHERE job_id = '1005' AND step_id = '1'"
check "the duplicate is in job_use twice until parts merge" \
	test "$(q "SELECT count() FROM tracer.job_use WHERE jk = '1005'")" = 3
stop_tracerd

echo "== versions 5 and 6: tracer.idle_hosts, job_view without FINAL"
jv() { q "SELECT cluster, job_id, user, account, partition, pipeline, start, end, nodes, summaries,
	round(cpu_s, 6), alloc_cpus, alloc_mem_bytes, mem_peak_bytes, state FROM tracer.job_view ORDER BY cluster, job_id FORMAT TSV"; }
jv_same() { jv >"$TMP/jv5" && [ -s "$TMP/jv5" ] && cmp -s "$TMP/jv4" "$TMP/jv5"; }
jv >"$TMP/jv4"
migrate_to "$MIG6" 004_v4 005_v5.sql 006_v6.sql
check "version 5: tracer.idle_hosts is there" test "$(q "SELECT count() FROM tracer.idle_hosts")" = 0
check "tracer.job_view reads tracer.jobs without FINAL" \
	test "$(q "SELECT count() FROM system.tables WHERE database = 'tracer' AND name = 'job_view' AND create_table_query NOT LIKE '%FINAL%'")" = 1
check "tracer.job_view answers as version 4's did, row for row ($(wc -l <"$TMP/jv4") jobs)" jv_same
# a retried delivery again: job 1005's step 1 twice, in a part of its own
q "INSERT INTO tracer.jobs SELECT * FROM tracer.jobs WHERE job_id = '1005' AND step_id = '1' LIMIT 1"
check "job 1005's step 1 is in tracer.jobs more than once" \
	test "$(q "SELECT count() > 1 FROM tracer.jobs WHERE job_id = '1005' AND step_id = '1'")" = 1
view_1005() { q "SELECT nodes, summaries, round(cpu_s, 6) FROM tracer.job_view WHERE cluster = 'c1' AND job_id = '1005' ${1:-} FORMAT TSV"; }
want_1005=$(q "SELECT 1, count(), round(sum(cpu_s), 6) FROM (SELECT summary_id, any(cpu_s) AS cpu_s FROM tracer.jobs WHERE cluster = 'c1' AND job_id = '1005' GROUP BY summary_id) FORMAT TSV")
check "job_view counts the duplicated summary once: 1 node, 2 summaries, their CPU time" \
	test "$(view_1005)" = "$want_1005"
check "the same with the WHERE pushed into the view (enable_optimize_predicate_expression)" \
	test "$(view_1005 "SETTINGS enable_optimize_predicate_expression = 1")" = "$want_1005"

echo "== version 7: node increments"
sweep_json() { lake sweep --since 30d --by "$1" --json >"$2" 2>"$2.err" || { cat "$2.err"; return 1; }; }
mutations_done() { [ "$(q "SELECT count() FROM system.mutations WHERE database = 'tracer' AND table = 'job_use' AND is_done = 0")" = 0 ]; }
# every row of job_use as a row without increments (an older tracer's):
# the sweep folds them all as version 4 did; then back
as_old() { q "ALTER TABLE tracer.job_use UPDATE inc_kind = 0 WHERE inc_kind != 0" &&
	wait_until 60 "the mutation done" mutations_done; }
same_sweep() { # same_sweep TAG: the sweep by user and host with increments = the fold of the rows
	local by ok=0
	for by in user host; do sweep_json "$by" "$TMP/$1-$by.inc.json" || return 1; done
	q "CREATE TABLE tracer.keep_kinds ENGINE = Memory AS SELECT sh, inc_kind FROM tracer.job_use" || return 1
	as_old || ok=1
	for by in user host; do
		[ $ok = 0 ] && sweep_json "$by" "$TMP/$1-$by.old.json" &&
			python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
def same(x, y):
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return abs(x - y) <= 1e-5
    return x == y
x, y = a["rows"], b["rows"]
assert x and len(x) == len(y) and all(same(i, j) for i, j in zip(x, y)), (x, y)' "$TMP/$1-$by.inc.json" "$TMP/$1-$by.old.json" || ok=1
	done
	# the kinds back, by summary hash
	q "ALTER TABLE tracer.job_use UPDATE inc_kind = 2 WHERE inc_kind = 0 AND sh IN (SELECT sh FROM tracer.keep_kinds WHERE inc_kind = 2)" &&
		wait_until 60 "the mutation done" mutations_done &&
		q "ALTER TABLE tracer.job_use UPDATE inc_kind = 1 WHERE inc_kind = 0 AND sh IN (SELECT sh FROM tracer.keep_kinds WHERE inc_kind = 1)" &&
		wait_until 60 "the mutation done" mutations_done && q "DROP TABLE tracer.keep_kinds" || ok=1
	return $ok
}
q "SELECT count() FROM tracer.job_use FINAL" >"$TMP/pre7.rows"
migrate_to "$MIG7" 006_v6 007_v7.sql
# the views that fill job_use and select column $1
use_views() { q "SELECT groupArray(name) FROM system.tables WHERE database = 'tracer' AND name LIKE 'job_use%mv' AND create_table_query LIKE '%$1%'"; }
check "one view fills job_use, job_use_v7_mv, with the increments" \
	test "$(use_views inc_kind)" = "['job_use_v7_mv']"
wait_until 60 "the backfill's mutation done" mutations_done
check "every old row copied with increments (kind 2), none without left" \
	test "$(q "SELECT countIf(inc_kind = 2), countIf(inc_kind = 0) FROM tracer.job_use FINAL")" = "$(printf '%s\t0' "$(cat "$TMP/pre7.rows")")"
backfill_sums() { # per (job, node): the increments sum to the fold of its distinct summaries
	test "$(q "SELECT count() FROM (SELECT nh, sum(inc_cpus) AS a, max(alloc_cpus) AS ma, sum(inc_cpu_s) AS c,
		if(max(alloc_cpus) > 0, sum(cpu_s), 0) AS mc, sum(inc_unused_mem_bytes) AS u,
		toInt64(if(max(alloc_mem_bytes) > max(mem_peak_bytes), max(alloc_mem_bytes) - max(mem_peak_bytes), 0)) AS mu,
		sum(inc_gpus_idle) AS g, max(gpus_idle) AS mg
		FROM (SELECT * FROM tracer.job_use LIMIT 1 BY sh) GROUP BY nh HAVING a != ma OR abs(c - mc) > 1e-6 OR u != mu OR g != mg)")" = 0 &&
	test "$(q "SELECT uniqExact(nh) FROM tracer.job_use")" -gt 3
}
check "backfill: each (job, node)'s increments sum to the fold of its summaries" backfill_sums
check "version 7: tracer sweep says version 8 is needed" \
	sweep_says 'no tracer.job_use of schema version 8: run tracer datalake migrate'

echo "== version 8: tools in job_use"
# the job_use rows of tools_kind K: their count, and their tools by
# summary hash, each name's CPU seconds, wall time, processes, sorted
kind_rows() { q "SELECT count() FROM tracer.job_use WHERE tools_kind $1"; }
use_tools() {
	q "SELECT sh, arraySort(arrayMap((n, c, w, p) -> (n, round(c, 6), round(w, 6), p), tool_names,
		tool_cpu_s, tool_wall_s, tool_processes))
		FROM tracer.job_use WHERE tools_kind > 0 ORDER BY sh LIMIT 1 BY sh FORMAT TSV"
}
# the same from tracer.tools, as the sink folds a summary's tools by name
tools_tools() {
	q "SELECT sh, arraySort(groupArray((t, round(c, 6), round(w, 6), p))) FROM (SELECT cityHash64(summary_id) AS sh,
		toString(tool) AS t, sum(cpu_s) AS c, max(wall_s) AS w, sum(processes) AS p
		FROM (SELECT * FROM tracer.tools LIMIT 1 BY summary_id, tool, path)
		GROUP BY sh, t) GROUP BY sh ORDER BY sh FORMAT TSV"
}
# every row with tools has them as tracer.tools holds them (a summary
# without tools: no line in tools_tools, an empty array in use_tools)
same_tools() {
	use_tools | grep -v $'\t\\[\\]$' >"$TMP/use.tools" && tools_tools >"$TMP/tools.tools" &&
		[ -s "$TMP/tools.tools" ] && cmp "$TMP/use.tools" "$TMP/tools.tools"
}
q "SELECT count() FROM (SELECT sh FROM tracer.job_use LIMIT 1 BY sh)" >"$TMP/pre8.rows"
migrate_to "$MIG" 007_v7 008_v8.sql
check "one view fills job_use, job_use_v8_mv, with the tools" \
	test "$(use_views tools_kind)" = "['job_use_v8_mv']"
wait_until 60 "the copy's mutation done" mutations_done
check "every old summary copied once with its tools (kind 2), no row of kind 0 left" \
	test "$(kind_rows '= 2') $(kind_rows '= 0')" = "$(cat "$TMP/pre8.rows") 0"
check "the copies' tools are tracer.tools' (each name's CPU seconds, per summary)" same_tools
check "the sweep with the backfilled increments = the fold of the same rows (by user, by host)" same_sweep v7old
sweep_json user "$TMP/sw7.json"
check "version 7: tracer sweep answers, every job counted once" \
	python3 - "$TMP/sw7.json" "$(q "SELECT uniqExact(scheduler, cluster, if(job_id != '', job_id, job)) FROM tracer.jobs FINAL WHERE scheduler != 'host'")" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert a["source"] == "datalake" and sum(r["jobs"] for r in a["rows"]) == int(sys.argv[2]), a
PY
start_tracerd v7 -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 || exit 1
NOW_NS=$(date +%s%N)
# a job of three steps: 4 CPUs and 2 GiB, then 8 CPUs and 1 GiB, then 2 CPUs
STEP_CPUS=4 STEP_MEM_BYTES=2147483648 STEP_NODES=2 STEP_JOB_START_NS=$NOW_NS step c1 1201 0
STEP_CPUS=8 STEP_MEM_BYTES=1073741824 STEP_NODES=2 STEP_JOB_START_NS=$NOW_NS step c1 1201 1
STEP_CPUS=2 STEP_MEM_BYTES=4294967296 STEP_NODES=2 STEP_JOB_START_NS=$NOW_NS step c1 1201 2
# a 1-node job's batch step alone
STEP_CPUS=2 STEP_MEM_BYTES=1073741824 STEP_NODES=1 STEP_JOB_START_NS=$NOW_NS step c1 1202 batch
rows_120x() { [ "$(q "SELECT count() FROM tracer.job_use FINAL WHERE jk IN ('1201', '1202') AND inc_kind = 1")" = 4 ]; }
check "tracerd's 4 summaries in job_use, with its increments (kind 1)" wait_until 60 "4 rows of kind 1" rows_120x
new_tools() { [ "$(q "SELECT count() FROM tracer.job_use WHERE jk IN ('1201', '1202') AND tools_kind = 1 AND notEmpty(tool_names)")" = 4 ] && same_tools; }
check "tracerd's rows carry their tools (tools_kind 1), as tracer.tools holds them" new_tools
file_sums() { # the file's summaries of 1201: increments that sum to the node's fold; 1202 single
	python3 - "$TRACERD_FILE" <<'PY'
import json, sys
ss = [json.loads(l) for l in open(sys.argv[1]) if '"job_id":"120' in l]
j1 = [s for s in ss if s["identity"]["job_id"] == "1201"]
j2 = [s for s in ss if s["identity"]["job_id"] == "1202"]
assert len(j1) == 3 and len(j2) == 1, (len(j1), len(j2))
inc = [s["node_increments"] for s in j1]
a = [s["identity"]["allocation"] for s in j1]
assert sum(i["alloc_cpus"] for i in inc) == 8 and not any(i["single"] for i in inc), inc
cpu = sum(s["totals"]["cpu_s"] for s in j1)
assert abs(sum(i["cpu_s"] for i in inc) - cpu) < 1e-6, (inc, cpu)
peak = max(s["memory"]["peak_bytes"] for s in j1)
assert sum(i["unused_mem_bytes"] for i in inc) == max((4 << 30) - peak, 0), (inc, peak)
assert j2[0]["node_increments"]["single"] is True and j2[0]["node_increments"]["alloc_cpus"] == 2, j2
PY
}
check "the file's summaries: 1201's increments sum to its node's fold, 1202 single" file_sums
check "the sweep with tracerd's increments = the fold of the same rows" same_sweep v7new
sweep_json user "$TMP/v7dup-a.json"
q "SYSTEM STOP MERGES tracer.job_use"
q "INSERT INTO tracer.jobs SELECT * FROM tracer.jobs WHERE job_id = '1201' AND step_id = '1'"
check "1201's step 1 twice in job_use" \
	test "$(q "SELECT count() FROM tracer.job_use WHERE jk IN ('1201', '1202')")" = 5
sweep_json user "$TMP/v7dup-b.json"
check "the sweep counts the duplicated summary once: the same answer" \
	python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["rows"] == b["rows"] and a["rows"], (a["rows"], b["rows"])' "$TMP/v7dup-a.json" "$TMP/v7dup-b.json"
q "SYSTEM START MERGES tracer.job_use"
# an older tracerd's row in 1201's job (no increments): the job is folded
q "ALTER TABLE tracer.job_use UPDATE inc_kind = 0 WHERE jk = '1201' AND inc_cpus = 0"
wait_until 60 "the mutation done" mutations_done
check "old and new rows in one job and one datalake: the same sweep" same_sweep v7mixed
stop_tracerd
# an insert done by ClickHouse whose answer never reached tracerd: the
# sink asks before inserting again, and a job of one summary (read as
# its row, without FINAL) is not counted twice
python3 "$TOP/tests/datalake/lostreply.py" 18835 "$CH_HTTP" "INSERT INTO tracer.jobs" 1 >"$TMP/relay.out" 2>&1 &
RELAY_PID=$!
wait_until 10 "the relay listening" grep -q ready "$TMP/relay.out" || exit 1
q "SYSTEM STOP MERGES tracer.job_use"
start_tracerd v7lost -o sinks=file,clickhouse -o clickhouse_url="http://127.0.0.1:18835/" -o retry_max_ms=1000 ||
	exit 1
STEP_CPUS=2 STEP_MEM_BYTES=1073741824 STEP_NODES=1 STEP_JOB_START_NS=$(date +%s%N) step c1 1301 batch
check "the relay lost the answer of tracerd's insert into tracer.jobs" \
	wait_until 30 "the lost answer" grep -q lost "$TMP/relay.out"
logs_already() { grep -q "1 summaries already in the datalake" "$TRACERD_LOG"; }
check "tracerd asked again and found the summary there: not inserted again" \
	wait_until 60 "tracerd's note" logs_already
check "1301's single row is once in job_use" \
	test "$(q "SELECT count(), max(inc_single) FROM tracer.job_use WHERE jk = '1301'")" = "$(printf '1\t1')"
stop_tracerd
q "SYSTEM START MERGES tracer.job_use"
kill "$RELAY_PID" && wait "$RELAY_PID" 2>/dev/null
RELAY_PID=

echo "== a schema version this tracerd does not know"
q "INSERT INTO tracer.schema_version SELECT 99, now(), 'from the future'"
start_tracerd v99 -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 || exit 1
step c1 1099 0; step c1 1099 1
wait_until 30 "the ClickHouse sink to refuse version 99" \
	dtrue 'sink("clickhouse")["failures"] > 0 and "schema version 99 unknown (this tracerd writes 8)" in sink("clickhouse").get("last_error", "")' &&
	pass "refused: $(dstat 'sink("clickhouse")["last_error"]')"
check "nothing inserted" test "$(q "SELECT count() FROM tracer.jobs WHERE job_id = '1099'")" = 0
check "the 2 summaries stay spooled, the file sink has them" \
	dtrue 'sink("clickhouse")["pending"] == 2 and sink("file")["delivered"] == 2 and d["spool"]["records"] == 2'
check "tracer status says it" says 'last error: .*schema version 99 unknown .*run tracer datalake migrate' tr_cli status
wait_until 30 "a second refusal" dtrue 'sink("clickhouse")["failures"] >= 2'
check "tracerd's log says it once" test "$(grep -c 'schema version 99 unknown' "$TRACERD_LOG")" = 1
dl migrate --dir "$MIG" >"$TMP/m99.out" 2>&1
rc=$?
check "migrate leaves a newer datalake alone (exit 1, says so)" \
	sh -c "[ $rc = 1 ] && grep -q 'at version 99' '$TMP/m99.out'"
q "ALTER TABLE tracer.schema_version DELETE WHERE version = 99"
rows_1099() { [ "$(q "SELECT count() FROM tracer.jobs FINAL WHERE job_id = '1099' AND summary != ''")" = 2 ]; }
wait_until 60 "the 2 spooled summaries inserted once the version is known again" rows_1099 &&
	pass "nothing lost"
wait_until 30 "an empty spool" dtrue 'sink("clickhouse")["pending"] == 0'
stop_tracerd

no_sanitizer_reports "no sanitizer report in tracerd's logs" "${TRACERD_LOGS[@]}"
finish
