#!/bin/bash
# run.sh BUILD - `tracer tune` on the ClickHouse datalake (Debian's 18.16,
# tests/delivery/clickhouse.sh): rows of a pipeline (rows.py: a step
# whose peak grows with its input, one with an OOM kill and a timeout, a
# Slurm job of 3 summaries on 2 nodes with one sent twice, another user's
# runs of the same step name, a run older than --since).  Root's tune
# reads one row per job without the summaries (the query log shows it);
# each user's tune through a reader tracerd holds only their own steps
# and says the same as root's for them.  Needs root and the services lock
# (flock /tmp/tracer-services.lock).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
# TUNELAKE_CH_TCP, TUNELAKE_CH_HTTP: other ports (another run may hold these)
CH_TCP=${TUNELAKE_CH_TCP:-18741} CH_HTTP=${TUNELAKE_CH_HTTP:-18742}
UA=tracer-tla
UB=tracer-tlb
GRP=tracer-tlg
cleanup() {
	reader_stop
	kill_owned
	ch_stop
	remove_test_users
	remove_suite_tmp
}
need_root
# the test users reach the reader's socket through it
suite_tmp tunelake
trap cleanup EXIT
need_built tracerd tracer
need_commands python3 curl
make_test_users "$GRP" "$UA" "$UB"
UTRACER=$(user_copy "$BUILD/tracer") || exit 1

# the query log tells which columns tune's query names
(umask 077 && ch_users_xml "" ch-s3cret '<log_queries>1</log_queries>' >"$TMP/users.in.xml")
ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP" "$TMP/users.in.xml"
ch_lake_rw ch-s3cret
root_lake() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/nonexistent.ndjson" "${LAKE[@]}" "$@"; }
check "tracer datalake migrate makes the schema" root_lake datalake migrate --dir "$TOP/contrib/clickhouse/migrations"
python3 "$TOP/tests/tunelake/rows.py" "$UA" "$(id -u "$UA")" "$UB" "$(id -u "$UB")" >"$TMP/rows.json"
check "the pipeline's rows are in tracer.jobs" chq -q 'INSERT INTO tracer.jobs FORMAT JSONEachRow' <"$TMP/rows.json"

echo "== root: one row per job from the datalake"
root_lake tune --pipeline PL --since 30d --format json -o "$TMP/root.json" 2>"$TMP/root.err"
check "root's tracer tune on the datalake: exit 0, nothing on stderr" test $? = 0 -a ! -s "$TMP/root.err"
cat "$TMP/root.err"
root_check() {
	python3 - "$TMP/root.json" "$UA" "$UB" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ua, ub = sys.argv[2], sys.argv[3]
assert doc["source"] == "datalake", doc["source"]
st = {(s["task"], s.get("user")): s for s in doc["steps"]}
assert sorted(st) == sorted([("bwa", ua), ("call", ua), ("fg", ua), ("par", ua), ("sort", ua),
                             ("sort", ub)]), sorted(st)
MiB = 1 << 20
a = st[("sort", ua)]
assert a["runs"]["total"] == 4, a["runs"]
fit = a["memory"]["fit"]
assert fit["used"] and abs(fit["b"] - 1) < 1e-6 and abs(fit["a_bytes"] - 100 * MiB) < 1, fit
# the line at the largest input (210 MiB) x 1.2 = 252 -> 256 MiB
assert a["request"]["mem_bytes"] == 256 * MiB, a["request"]
c = st[("call", ua)]
assert (c["runs"]["out_of_memory"], c["runs"]["timeout"], c["runs"]["completed"]) == (1, 1, 1)
# the OOM'd run needed at least 1 GiB x 1.5 = 1536 MiB; x 1.2 -> 1856 MiB
assert c["request"]["mem_bytes"] == 1856 * MiB and c["request"]["retry_on_oom"], c["request"]
# the timed-out run: 1000 s x 1.5 = 1500 s; p95 of 3 is the largest; x 1.2 = 1800 s
assert c["request"]["time_s"] == 1800, c["request"]
w = st[("bwa", ua)]
# 3 summaries (one sent twice) on 2 nodes: one run, the largest node peak
assert w["runs"]["total"] == 1 and w["memory"]["peak_max_bytes"] == 900 * MiB, w
assert w["cpus"]["requested_p95"] == 4, w["cpus"]
p = st[("par", ua)]
# the sampled concurrency p95 (conc_p95), not the mean use (1 CPU)
assert p["request"]["cpus"] == 6, (p["cpus"], p["request"])
b = st[("sort", ub)]
assert b["runs"]["total"] == 3 and b["memory"]["peak_max_bytes"] == 3072 * MiB, b
# a run on Fargate (the labels column): the step asks a Fargate size
assert st[("fg", ua)]["request"]["fargate"] and not st[("sort", ua)]["request"]["fargate"]
PY
}
check "steps per owner; the fit, the OOM and timeout floors; a Slurm job is one run" root_check
root_lake tune --pipeline PL --since 30d --format aws-batch -o "$TMP/root.aws.json" 2>"$TMP/root.aws.err" ||
	cat "$TMP/root.aws.err"
fargate_size() {
	python3 - "$TMP/root.aws.json" "$TOP/tests/tune" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
import awsshape
reqs = {r["jobDefinition"]: r["containerOverrides"]["resourceRequirements"]
        for r in json.load(open(sys.argv[1]))}
fg = {x["type"]: x["value"] for x in reqs["fg"]}
assert not awsshape.fargate_problems(reqs["fg"], "fg"), awsshape.fargate_problems(reqs["fg"], "fg")
assert fg == {"VCPU": "1", "MEMORY": "2048"}, fg
PY
}
check "a step with a run on Fargate: its AWS Batch request is a Fargate size (botocore's list)" fargate_size
# the same summaries as an archive file: tune asks for the same CPUs
python3 -c 'import json, sys
for l in sys.stdin:
    print(json.loads(l)["summary"])' <"$TMP/rows.json" | awk '!seen[$0]++' >"$TMP/archive.ndjson"
"$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/archive.ndjson" tune --pipeline PL --since 30d \
	--format json -o "$TMP/file.json" 2>"$TMP/file.err"
same_cpus() {
	python3 - "$TMP/root.json" "$TMP/file.json" <<'PY'
import json, sys
cpus = lambda f: {(s["task"], s.get("user")): s["request"]["cpus"] for s in json.load(open(f))["steps"]}
lake, archive = cpus(sys.argv[1]), cpus(sys.argv[2])
assert archive and lake == archive, (lake, archive)
PY
}
check "the archive's summaries give every step the same CPUs as the datalake" same_cpus
no_summary_read() { # the newest tune query in ClickHouse's log names no summary column
	local q
	chq -q 'SYSTEM FLUSH LOGS' || return 1
	q=$(chq -q "SELECT query FROM system.query_log WHERE query LIKE '%any(task_name)%' AND query NOT LIKE '%query_log%' AND type = 2 ORDER BY event_time DESC LIMIT 1")
	[ -n "$q" ] || { echo "no tune query in the log"; return 1; }
	! grep -qE '(^|[ ,(])summary([ ,)]|$)' <<<"$q" || { echo "$q"; return 1; }
}
check "the query read no summary column (ClickHouse's query log)" no_summary_read

echo "== each user through a reader tracerd"
reader_up
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$RSOCK" -o file="$TMP/nonexistent.ndjson" -o datalake=clickhouse "$@"; }
ucli "$UA" tune --pipeline PL --format json -o "$TMP/$UA/a.json"
ucli "$UB" tune --pipeline PL --format json -o "$TMP/$UB/b.json"
same_as_root() { # same_as_root FILE USER: the user's steps are root's steps of that user
	python3 - "$TMP/root.json" "$1" "$2" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
mine = json.load(open(sys.argv[2]))
user = sys.argv[3]
want = {s["task"]: s for s in root["steps"] if s.get("user") == user}
got = {s["task"]: s for s in mine["steps"]}
assert all(s.get("user") == user for s in mine["steps"]), [s.get("user") for s in mine["steps"]]
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for t in got:
    for k in ("request", "runs"):
        g, w = dict(got[t][k]), dict(want[t][k])
        assert g == w, (t, k, g, w)
PY
}
check "$UA through the reader: only $UA's steps, the same requests as root's" same_as_root "$TMP/$UA/a.json" "$UA"
check "$UB through the reader: only $UB's step, the same request as root's" same_as_root "$TMP/$UB/b.json" "$UB"
reader_stop
no_sanitizer_reports "no sanitizer report in the reader's log" "$RLOG"

# TUNE_BENCH=1: 1,000,000 more jobs (200 pipelines, 20 users, 60 days),
# then the p50 of 5 runs of root's `tracer tune --pipeline PL --since 30d`
# and `tracer sweep --since 30d --by user|host|tool` (printed, not asserted:
# numbers are for docs/benchmarks.md)
if [ -n "${TUNE_BENCH:-}" ]; then
	echo "== TUNE_BENCH: a table of 1,000,000 more jobs"
	PAD=$(printf 'x%.0s' $(seq 300)) # a summary's bytes (18.16 has no repeat())
	# ten inserts of 100,000: one of a million goes past the server's
	# memory limit while the job_keys view is filled
	for k in 0 1 2 3 4 5 6 7 8 9; do
		# each its own job (no job id): node increments of its own totals,
		# single, as tracerd writes them (schema v7)
		chq -q "INSERT INTO tracer.jobs (summary_id, job, host, scheduler, user, uid, pipeline,
			task_name, start, end, start_ns, end_ns, wall_s, cpu_s, alloc_cpus, alloc_mem_bytes,
			mem_peak_bytes, rchar, state, summary, inc_kind, inc_single, inc_cpus, inc_cpu_s,
			inc_unused_mem_bytes)
			SELECT toString(number), concat('b-', toString(number)), concat('n', toString(number % 50)),
			'local', concat('u', toString(number % 20)), 20000 + number % 20,
			if(number % 200 = 0, 'PL', concat('P', toString(number % 200))),
			concat('t', toString(number % 7)), toDateTime(now() - number % 5184000 - 600),
			toDateTime(now() - number % 5184000), (toUInt64(now()) - number % 5184000 - 600) * 1000000000,
			(toUInt64(now()) - number % 5184000) * 1000000000, 600, 300, 4, 4294967296,
			(number % 1000) * 1048576, (number % 977) * 1048576, 'COMPLETED',
			'$PAD', 1, 1, 4, 300, 4294967296 - (number % 1000) * 1048576
			FROM system.numbers LIMIT 100000 OFFSET $((k * 100000))" ||
			fail "batch $k of the bench's rows not inserted"
	done
	# two tools a job (30 names), CPU time shared 2:1, for sweep --by tool
	for k in 0 1 2 3 4 5 6 7 8 9; do
		chq -q "INSERT INTO tracer.tools (summary_id, end, user, tool, path, cpu_s)
			SELECT toString(intDiv(number, 2)), toDateTime(now() - intDiv(number, 2) % 5184000),
			concat('u', toString(intDiv(number, 2) % 20)), concat('tool', toString(number % 30)),
			concat('/usr/bin/tool', toString(number % 30)), if(number % 2 = 0, 200, 100)
			FROM system.numbers LIMIT 200000 OFFSET $((k * 200000))" ||
			fail "batch $k of the bench's tool rows not inserted"
	done
	chq -q "OPTIMIZE TABLE tracer.jobs" 2>/dev/null
	# p50 of 5 runs of a command, in ms
	p50_ms() {
		local t0 t1 ts=""
		for _ in 1 2 3 4 5; do
			t0=$(now_us)
			"$@" >/dev/null 2>"$TMP/p50.err" || { echo "FAIL: $*: $(head -c 600 "$TMP/p50.err")"; return 1; }
			t1=$(now_us)
			ts+="$(( (t1 - t0) / 1000 )) "
		done
		echo "$ts" | tr ' ' '\n' | grep . | sort -n | sed -n 3p
	}
	rows=$(chq -q 'SELECT count() FROM tracer.jobs')
	root_lake tune --pipeline PL --since 30d --format json -o "$TMP/bench.json"
	echo "MEASURED: tracer tune --pipeline PL --since 30d on $rows rows: p50 of 5 $(p50_ms root_lake tune --pipeline PL --since 30d --format json -o "$TMP/bench.json") ms, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"])' "$TMP/bench.json") jobs"
	echo "MEASURED: tracer sweep --since 30d --by user on $rows rows: p50 of 5 $(p50_ms root_lake sweep --since 30d --by user) ms"
	echo "MEASURED: tracer sweep --since 30d --by host on $rows rows: p50 of 5 $(p50_ms root_lake sweep --since 30d --by host) ms"
	echo "MEASURED: tracer sweep --since 30d --by tool on $rows rows (2,000,000 tool rows): p50 of 5 $(p50_ms root_lake sweep --since 30d --by tool) ms"
fi
finish
