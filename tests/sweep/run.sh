#!/bin/bash
# run.sh BUILD - `tracer sweep` on known jobs (tests/sweep/jobs.py: two
# users, two accounts, two nodes, a job on two nodes with two steps on
# one, a TIMEOUT, an OOM with an idle GPU, a job outside the window),
# delivered by a real tracerd from its spool to its file sink and to a
# real ClickHouse 18.16: the exact hours and costs from the datalake
# (ClickHouse sums) and from the archive file (folded by tracer), the
# same idle core-hours as `tracer report` (jobview's roll-up), and each
# user's rows through tracerd (the archive) and tracerd --reader (the
# datalake): a user sees their own row, admin_group every user's.
# By tool, each job's waste shared among its tools by their CPU time: the
# exact shares from both sources, the same numbers from both, a row a
# retried delivery left twice in ClickHouse counted once, a user's own
# tools only, admin_group's every user's.
# Idle hosts (tests/sweep/idle.py): known idle_host records delivered the
# same way, summed per host from both sources (the part inside the
# window, EC2 instance-hours, costs, --by host's column); then a real
# tracerd with idle_host_after_s = 2 on a host that reads as an EC2
# instance (a DMI directory of the test) records its idle period when a
# job opens, and another when it stops: each arrives in the file sink
# and in ClickHouse's tracer.idle_hosts, valid and self-consistent, and
# tracer sweep shows it under its host - to root and admin_group, never
# to another user.
# The known jobs carry node increments but one (5002, as an older
# tracerd's): the same exact numbers come from a datalake of both kinds,
# and the datalake's rows are the archive's for every --by; a summary
# with increments delivered twice counts once.
# The users and ClickHouse are made here and removed at the end.  Needs
# root and the services lock (flock /tmp/tracer-services.lock).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
. "$TOP/tests/delivery/clickhouse.sh"
# SWEEP_CH_TCP, SWEEP_CH_HTTP: other ports (the bench's server may hold these)
CH_TCP=${SWEEP_CH_TCP:-18901} CH_HTTP=${SWEEP_CH_HTTP:-18924}
UA=tracer-swa
UB=tracer-swb
ADM=tracer-swadm
CHECK=$TOP/tests/sweep/check.py

cleanup() {
	# the job that ends the idle period waits for this file
	[ -n "${TMP:-}" ] && [ -d "$TMP" ] && touch "$TMP/idle.stop"
	reader_stop
	kill_owned
	stop_tracerd
	ch_stop
	remove_test_users
	remove_suite_tmp
}
need_root
# the test users reach the reader's socket through it
suite_tmp sweep
trap cleanup EXIT
need_built tracerd tracer
need_commands python3 curl
make_test_users "$ADM" "$UA" "$UB"
UTRACER=$(user_copy "$BUILD/tracer") || exit 1
as_admin() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --groups="$ADM" -- "$@"; }

ch_up "$TMP/ch" "$CH_TCP" "$CH_HTTP"
check "the ClickHouse server is Debian's 18.16" ch_is_debian_1816
MIG=$TOP/contrib/clickhouse/migrations
CHURL="http://127.0.0.1:$CH_HTTP/"
LAKE=(-o datalake=clickhouse -o clickhouse_url="$CHURL")
PRICES=(-o price_cpu_hour=0.05 -o price_gb_hour=0.01)
check "the datalake's schema (tracer datalake migrate)" sh -c "'$BUILD/tracer' -o clickhouse_url='$CHURL' datalake migrate --dir '$MIG' >/dev/null 2>&1"

echo "== a real summary, the base of the known jobs"
start_tracerd b0 || exit 1
trun "$TMP/base.job" --name sweep-base -- /bin/true
wait_until 30 "the base job's summary" summary_of_job "$TMP/base.job" || exit 1
stop_tracerd
cp "$TRACERD_FILE" "$TMP/base.ndjson"
check "the base summary is valid against docs/summary.schema.json" \
	python3 "$TOP/tests/validate_summary.py" --min 1 "$TMP/base.ndjson"
own_increments() { # a tracer run job is its own: its node_increments are its totals, single
	python3 - "$TMP/base.ndjson" <<'PY'
import json, sys
s = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
inc, a = s.get("node_increments"), s["identity"].get("allocation", {})
assert inc and inc["single"] is True, inc
want = a.get("cpus", 0)
assert inc["alloc_cpus"] == want and abs(inc["cpu_s"] - (s["totals"]["cpu_s"] if want else 0)) < 1e-9, (inc, a)
PY
}
check "the real tracer run job's summary: node_increments of its own totals, single" own_increments
NSTEPS=$(python3 "$TOP/tests/sweep/jobs.py" "$TMP/base.ndjson" "$TMP/sw.spool" \
	"$(id -u "$UA")" "$UA" "$(id -u "$UB")" "$UB") || { fail "jobs.py did not write the spool"; exit 1; }
IDLE=$TOP/tests/sweep/idle.py
KNOWN=$TMP/idle-known.json
NIDLE=$(python3 "$IDLE" spool "$TMP/sw.spool" $((NSTEPS + 1)) "$KNOWN") || { fail "idle.py did not write the spool"; exit 1; }

echo "== tracerd delivers the $NSTEPS steps from its spool to the file and ClickHouse"
start_tracerd sw -o sinks=file,clickhouse -o clickhouse_url="$CHURL" -o retry_max_ms=1000 \
	-o admin_group="$ADM" "${PRICES[@]}" || exit 1
rows_in() { [ "$(clickhouse-client --port "$CH_TCP" -q "SELECT count() FROM tracer.jobs FINAL WHERE cluster = 'c1'")" = "$NSTEPS" ]; }
lines_in() { [ "$(grep '"cluster":"c1"' "$TRACERD_FILE" 2>/dev/null | grep -vc '"record":"idle_host"')" = "$NSTEPS" ]; }
wait_until 60 "$NSTEPS rows in tracer.jobs" rows_in || exit 1
wait_until 30 "$NSTEPS summaries in the file sink" lines_in || exit 1
idle_rows_in() { [ "$(clickhouse-client --port "$CH_TCP" -q "SELECT count() FROM tracer.idle_hosts FINAL WHERE cluster = 'c1'")" = "$NIDLE" ]; }
idle_lines_in() { [ "$(grep -c '"record":"idle_host"' "$TRACERD_FILE" 2>/dev/null)" = "$NIDLE" ]; }
check "the $NIDLE idle_host records: rows of tracer.idle_hosts" wait_until 60 "$NIDLE rows in tracer.idle_hosts" idle_rows_in
check "... and lines of the file sink" wait_until 30 "$NIDLE idle_host lines in the file sink" idle_lines_in
# (the known jobs are shortened real summaries: only the records are checked)
idle_valid() {
	grep '"record":"idle_host"' "$TRACERD_FILE" >"$TMP/idle-lines.ndjson" &&
		[ "$(wc -l <"$TMP/idle-lines.ndjson")" = "$NIDLE" ] &&
		python3 "$TOP/tests/validate_summary.py" --min 0 "$TMP/idle-lines.ndjson"
}
check "the file's idle_host records are valid against docs/idle_host.schema.json" idle_valid

# rows with increments and 5002's without: a datalake of both kinds
kinds() {
	local got
	got=$(clickhouse-client --port "$CH_TCP" -q "SELECT jk, groupUniqArray(inc_kind), max(inc_single)
		FROM tracer.job_use WHERE jk LIKE '500_' GROUP BY jk ORDER BY jk FORMAT CSV" | tr -d '"[]' | tr '\n' ' ')
	[ "$got" = "5001,1,0 5002,0,0 5003,1,1 5004,1,1 " ] || { echo "job_use: $got"; return 1; }
}
check "tracer.job_use: increments in 5001's, 5003's and 5004's rows (5003, 5004 single), none in 5002's" kinds
# root's CLI: ClickHouse itself, or the archive file itself (no tracerd)
root_lake() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TMP/nonexistent.ndjson" "${LAKE[@]}" "${PRICES[@]}" sweep "$@"; }
root_file() { "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TRACERD_FILE" "${PRICES[@]}" sweep "$@"; }
expect() { # expect NAME SOURCE BY [USERS] -- COMMAND...: its --json answer is NAME's
	local name=$1 src=$2 by=$3 users=$4
	shift 5
	"$@" --json >"$TMP/out.json" 2>"$TMP/out.err" || { cat "$TMP/out.err"; return 1; }
	python3 "$CHECK" "$TMP/out.json" "$name" "$src" "$by" "$users" "$UA" "$UB"
}
for by in user account host; do
	check "datalake, --by $by: the exact hours, jobs, limits, worst job and costs" \
		expect "$by" datalake "$by" all -- root_lake --since 30d --by "$by"
	check "archive file, --by $by: the same numbers" \
		expect "$by" archive "$by" all -- root_file --since 30d --by "$by"
done
expect_idle() { # expect_idle SOURCE [REAL_FILE [-]] -- COMMAND...: its --json answer's idle
	# hosts: the known ones (- : none) and REAL_FILE's periods
	local src=$1 real= known=$KNOWN
	shift
	[ "$1" = -- ] || { real=$1; shift; }
	[ "$1" = -- ] || { known=$1; shift; }
	shift
	"$@" --json >"$TMP/idle.json" 2>"$TMP/idle.err" || { cat "$TMP/idle.err"; return 1; }
	python3 "$IDLE" sweep "$TMP/idle.json" "$src" "$known" $real
}
check "datalake: the idle hosts, ranked, the window's part, EC2 instance-hours, costs" \
	expect_idle datalake -- root_lake --since 30d
check "archive file: the same idle hosts" expect_idle archive -- root_file --since 30d
check "datalake, --by host: each host's idle hours beside its waste" \
	expect_idle datalake -- root_lake --since 30d --by host
check "archive file, --by host: the same" expect_idle archive -- root_file --since 30d --by host
no_idle_in_report() {
	"$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TRACERD_FILE" jobs --limit 100 --json >"$TMP/jobs.json" || return 1
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert isinstance(j, list) and j and all("record" not in r and r.get("identity") for r in j), json.dumps(j)[:2000]' "$TMP/jobs.json"
}
check "tracer jobs over the archive lists the jobs, no idle_host record" no_idle_in_report
check "datalake, --by tool: each job's waste shared by its tools' CPU time" \
	expect tool datalake tool all -- root_lake --since 30d --by tool
check "archive file, --by tool: the same shares" expect tool archive tool all -- root_file --since 30d --by tool
same_rows() { # same_rows BY: the datalake's and the archive's rows agree (same_rows.py)
	root_lake --since 30d --by "$1" --json >"$TMP/same-lake.json" || return 1
	root_file --since 30d --by "$1" --json >"$TMP/same-file.json" || return 1
	python3 "$TOP/tests/sweep/same_rows.py" "$TMP/same-lake.json" "$TMP/same-file.json" >/dev/null
}
check "--by tool: the datalake's rows are the archive's" same_rows tool
for by in user host partition pipeline; do
	check "--by $by: the datalake's rows are the archive's" same_rows "$by"
done
# a retried delivery: 5001's rows of tracer.jobs and tracer.tools twice
# (merges stopped so that the copies stay apart while the sweep reads)
dup_rows() {
	local q="clickhouse-client --port $CH_TCP -q" t j
	$q "SYSTEM STOP MERGES tracer.jobs" && $q "SYSTEM STOP MERGES tracer.tools" &&
		$q "SYSTEM STOP MERGES tracer.job_use" &&
		$q "INSERT INTO tracer.jobs SELECT * FROM tracer.jobs WHERE job_id = '5001'" &&
		$q "INSERT INTO tracer.tools SELECT * FROM tracer.tools WHERE job_id = '5001'" || return 1
	t=$($q "SELECT count() FROM tracer.tools WHERE job_id = '5001'")
	j=$($q "SELECT count() FROM tracer.jobs WHERE job_id = '5001'")
	u=$($q "SELECT count() FROM tracer.job_use WHERE jk = '5001' AND inc_kind = 1")
	[ "$t" = 12 ] && [ "$j" = 6 ] && [ "$u" = 6 ] ||
		{ echo "5001's rows: $t in tracer.tools, $j in tracer.jobs, $u in job_use"; return 1; }
}
# (a single summary's row is kept from arriving twice by the sink itself:
# tests/datalake loses an insert's answer)
check "5001's rows (with increments) twice in tracer.jobs, tracer.tools, job_use" dup_rows
check "datalake, --by tool: a summary delivered twice counts once" \
	expect tool datalake tool all -- root_lake --since 30d --by tool
check "datalake, --by user: the same" expect user datalake user all -- root_lake --since 30d --by user
check "datalake, --by host: the same" expect host datalake host all -- root_lake --since 30d --by host
check "datalake, --by account: the same" expect account datalake account all -- root_lake --since 30d --by account
check "datalake, --limit 1: only the costliest user" expect user1 datalake user all -- root_lake --since 30d --limit 1
check "archive, --limit 1: only the costliest user" expect user1 archive user all -- root_file --since 30d --limit 1
check "datalake, --since 1d: no job (they ended two days ago)" expect none datalake user all -- root_lake --since 1d
check "archive, --since 1d: no job" expect none archive user all -- root_file --since 1d

echo "== the same idle core-hours as tracer report (jobview's roll-up)"
"$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$TRACERD_FILE" report --since 30d --by user --json >"$TMP/report.json"
root_file --since 30d --by user --json >"$TMP/sweep-file.json"
root_lake --since 30d --by user --json >"$TMP/sweep-lake.json"
same_as_report() {
	python3 - "$TMP/report.json" "$1" <<'PY'
import json, sys
rep = {g["user"]: (g["core_s"] - g["cpu_s"]) / 3600 for g in json.load(open(sys.argv[1]))["groups"]}
sw = {r["key"]: r["idle_core_hours"] for r in json.load(open(sys.argv[2]))["rows"]}
if set(rep) != set(sw) or any(abs(rep[k] - sw[k]) > 1e-4 for k in rep):
    sys.exit(f"report {rep} sweep {sw}")
PY
}
check "the archive's sweep: idle core-hours = tracer report's core_s - cpu_s per user" same_as_report "$TMP/sweep-file.json"
check "the datalake's sweep: the same" same_as_report "$TMP/sweep-lake.json"

echo "== each user through tracerd (the archive file)"
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TMP/nonexistent.ndjson" sweep "$@"; }
acli() { local u=$1; shift; as_admin "$u" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TMP/nonexistent.ndjson" sweep "$@"; }
check "A: only A's row" expect user archive user A -- ucli "$UA" --since 30d
check "B: only B's row" expect user archive user B -- ucli "$UB" --since 30d
check "B by host: only what B's job wasted on n2" expect hostB archive host B -- ucli "$UB" --since 30d --by host
check "B in admin_group: every user's rows" expect user archive user all -- acli "$UB" --since 30d
check "B by tool: only the tools of B's job" expect toolB archive tool B -- ucli "$UB" --since 30d --by tool
check "B in admin_group by tool: every user's tools" expect tool archive tool all -- acli "$UB" --since 30d --by tool
bad_by() {
	local out rc
	out=$("$BUILD/tracer" sweep --by colour 2>&1)
	rc=$?
	[ "$rc" = 2 ] && grep -q 'not user, account, partition, pipeline, host or tool' <<<"$out" || { echo "rc $rc: $out"; return 1; }
}
check "a bad --by: exit 2, saying what it takes" bad_by
bad_request() {
	PYTHONPATH=$TOP/tests python3 -c 'import sys, tracerd_req
r = tracerd_req.ask(sys.argv[1], {"op": "sweep", "v": 1, "by": "colour", "since_s": 60, "limit": 5})
sys.exit(0 if r.get("ok") is False and "user, account" in r.get("error", "") else f"reply {r}")' "$TRACERD_SOCK"
}
check "tracerd refuses a sweep request of an unknown group, with a reason" bad_request
stop_tracerd

echo "== each user through tracerd --reader (the datalake)"
reader_up -o admin_group="$ADM" "${PRICES[@]}"
rcli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$RSOCK" -o file="$TMP/nonexistent.ndjson" sweep "$@"; }
racli() { local u=$1; shift; as_admin "$u" "$UTRACER" -o socket="$RSOCK" -o file="$TMP/nonexistent.ndjson" sweep "$@"; }
check "A: only A's row" expect user datalake user A -- rcli "$UA" --since 30d
check "B: only B's row" expect user datalake user B -- rcli "$UB" --since 30d
check "B by account: only B's job in acc1" expect accountB datalake account B -- rcli "$UB" --since 30d --by account
check "A in admin_group: every user's rows" expect user datalake user all -- racli "$UA" --since 30d
check "A by tool: only the tools of A's jobs" expect toolA datalake tool A -- rcli "$UA" --since 30d --by tool
check "B in admin_group by tool: every user's tools" expect tool datalake tool all -- racli "$UB" --since 30d --by tool

echo "== the table, CSV and HTML"
table_ok() {
	local out
	out=$(root_lake --since 30d) || return 1
	grep -q "^USER .*IDLE CORE-H" <<<"$out" && grep -qE "^$UA +2 +10\.8 +18\.3 " <<<"$out" &&
		grep -qE "^$UB +1 +3\.5 +0\.0 +0\.5 " <<<"$out" || { echo "$out"; return 1; }
	out=$(root_lake --since 30d --wide) || return 1
	grep -qE "^Idle hosts \(no job open, CPU quiet: idle_host\): [0-9]+ host\(s\)" <<<"$out" &&
		grep -qE "^IDLE HOST .*IDLE H .*IDLE CORE-H" <<<"$out" &&
		grep -qE "^n1 +c1 +2 +1\.5 +4 +6\.0 +2% +0\.30 +i-0123456789abcdef0 \(m5\.large\)" <<<"$out" ||
		{ echo "$out"; return 1; }
}
check "the table: a line per user, A's first (costliest); the idle hosts, n1 first" table_ok
host_table_ok() {
	local out
	out=$(root_file --since 30d --by host --wide) || return 1
	grep -qE "^HOST .*COST +IDLE HOST-H +WORST JOB" <<<"$out" && grep -qE "^n1 .* 1\.5 +5001" <<<"$out" ||
		{ echo "$out"; return 1; }
}
check "the table by host: an IDLE HOST-H column, n1's 1.5 h" host_table_ok
tool_table_ok() {
	local out
	out=$(root_lake --since 30d --by tool) || return 1
	grep -q "^Shared among tools: a job's idle core-hours" <<<"$out" &&
		grep -q "^TOOL .*JOBS .*CPU-H .*IDLE CORE-H" <<<"$out" &&
		grep -qE "^bwa +2 +0\.9 +7\.8 +9\.5 +0\.2 " <<<"$out" &&
		grep -qE "^- +1 +0\.0 +2\.7 +5\.5 " <<<"$out" || { echo "$out"; return 1; }
}
check "the table by tool: the rule, a CPU-H column, bwa first" tool_table_ok
tool_csv_ok() {
	root_file --since 30d --by tool --csv >"$TMP/tool.csv" || return 1
	python3 - "$TMP/tool.csv" <<'PY'
import csv, sys
# the groups' block, then (an empty line) the idle hosts'
rows = list(csv.DictReader(open(sys.argv[1]).read().split("\n\n")[0].splitlines()))
assert [r["tool"] for r in rows] == ["bwa", "-", "samtools", "gzip"], rows
assert abs(float(rows[2]["cpu_hours"]) - 1100 / 3600) < 1e-4, rows[2]
PY
}
check "--csv by tool: a cpu_hours column, a row per tool" tool_csv_ok
csv_ok() {
	root_lake --since 30d --csv >"$TMP/sweep.csv" || return 1
	python3 - "$TMP/sweep.csv" "$UA" "$UB" <<'PY'
import csv, sys
blocks = open(sys.argv[1]).read().split("\n\n")
rows = list(csv.DictReader(blocks[0].splitlines()))
idle = list(csv.DictReader(blocks[1].splitlines()))
assert [r["idle_host"] for r in idle][:1] == ["n1"] and idle[0]["instance_id"] == "i-0123456789abcdef0", idle
assert abs(float(idle[0]["idle_hours"]) - 1.5) < 1e-6 and abs(float(idle[0]["cost"]) - 0.3) < 1e-6, idle
assert [r["user"] for r in rows] == sys.argv[2:4], rows
assert abs(float(rows[0]["cost"]) - 0.725) < 1e-4, rows[0]
assert rows[0]["worst_job"] == "5001" and rows[1]["ooms"] == "1", rows
PY
}
check "--csv: a header and a row per user, then the idle hosts' block" csv_ok
html_ok() {
	root_lake --since 30d --html "$TMP/sweep.html" || return 1
	grep -q '<table class="data sortable" id="sweep">' "$TMP/sweep.html" &&
		grep -q "<td>$UA</td>" "$TMP/sweep.html" && grep -q '</html>' "$TMP/sweep.html" &&
		grep -q '<table class="data sortable" id="idle_hosts">' "$TMP/sweep.html" &&
		grep -q '<tr><td>n1</td><td>c1</td><td class="num">2</td><td class="num">1.50</td>' "$TMP/sweep.html" &&
		grep -q '<td>i-0123456789abcdef0 (m5.large)</td>' "$TMP/sweep.html"
}
check "--html FILE: the page has the table and the users, and the idle hosts' table" html_ok
# the page in Debian's headless chromium, networking off, as tests/html
# opens the other pages: its DOM has the rows, it asked for nothing
if command -v chromium >/dev/null; then
	rm -rf "$TMP/profile"
	timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND' --proxy-server="127.0.0.1:18399" \
		--user-data-dir="$TMP/profile" --enable-logging=stderr --v=0 \
		--log-net-log="$TMP/sweep.netlog" --window-size=1280,900 \
		--dump-dom "file://$TMP/sweep.html" >"$TMP/sweep.dom" 2>"$TMP/sweep.err"
	check "chromium: the page's DOM has its title and both users' rows" \
		python3 "$TOP/tests/html/page.py" dom "$TMP/sweep.dom" --title "tracer: waste by user since 30d" \
		--text "$UA" --text "$UB" --text "Idle core-hours"
	check "chromium: the page made no request and nothing was refused" \
		python3 "$TOP/tests/html/page.py" net "$TMP/sweep.netlog" "$TMP/sweep.err" "file://$TMP/sweep.html"
else
	fail "chromium is not installed (apt-get install chromium): the page is not checked in a browser"
fi

# last: the real job's summary joins the datalake's known jobs
echo "== a real idle period: recorded when a job opens, and when tracerd stops"
# this host reads as an EC2 instance (TRACERD_TEST_DMI_DIR, a test hook)
mkdir -p "$TMP/dmi" && echo "Amazon EC2" >"$TMP/dmi/sys_vendor" &&
	echo i-0fedcba987654321f >"$TMP/dmi/board_asset_tag" && echo c5.xlarge >"$TMP/dmi/product_name" || exit 1
TRACERD_TEST_DMI_DIR=$TMP/dmi start_tracerd idle -o sinks=file,clickhouse -o clickhouse_url="$CHURL" \
	-o retry_max_ms=1000 -o admin_group="$ADM" -o idle_host_cpu_share=1 -o idle_host_after_s=2 \
	-o price_instance_hour=0.5 "${PRICES[@]}" || exit 1
IDLE_FILE=$TRACERD_FILE
idle_is() { tr_cli status --json | python3 -c 'import json, sys
sys.exit(0 if json.load(sys.stdin)["idle_host"]["idle"] == (sys.argv[1] == "yes") else 1)' "$1"; }
check "no job for 2 s: tracerd says the host is idle" poll_until 30 idle_is yes
# a job open until tracerd has seen it (the stop file)
"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/idle.job" --name idle-ender -- /bin/sh -c \
	"while [ ! -e '$TMP/idle.stop' ]; do sleep 0.2; done" &
ipid=$!
OWNED_PIDS+=("$ipid")
check "a job open: the host is no longer idle" poll_until 30 idle_is no
touch "$TMP/idle.stop"
wait "$ipid"
wait_until 30 "the job's summary" summary_of_job "$TMP/idle.job" || exit 1
idle_records() { [ "$(grep -c '"record":"idle_host"' "$IDLE_FILE" 2>/dev/null)" = "$1" ]; }
check "the job ended the idle period: its idle_host record is in the file sink" \
	wait_until 30 "an idle_host line in $IDLE_FILE" idle_records 1
check "the record: this host, a job ended it, start/end/idle_s agree, EC2 c5.xlarge, 0.5/h" \
	python3 "$IDLE" record "$IDLE_FILE" "$(python3 -c 'import socket; print(socket.gethostname())')"
REAL_ID=$(python3 -c 'import json, sys
print(next(json.loads(l)["summary_id"] for l in open(sys.argv[1]) if "\"record\":\"idle_host\"" in l))' "$IDLE_FILE")
real_row() { # the row of the record in tracer.idle_hosts is the file's record
	clickhouse-client --port "$CH_TCP" -q "SELECT * FROM tracer.idle_hosts FINAL WHERE summary_id = '$REAL_ID' FORMAT JSONEachRow" >"$TMP/real.row" &&
	python3 - "$TMP/real.row" "$IDLE_FILE" "$REAL_ID" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rec = next(json.loads(l) for l in open(sys.argv[2]) if sys.argv[3] in l)
assert len(rows) == 1, rows
r = rows[0]
want = {"host": rec["host"]["hostname"], "cpus": rec["host"]["cpus"], "ended_by": "job",
        "instance_id": "i-0fedcba987654321f", "instance_type": "c5.xlarge", "price_hour": 0.5,
        "start_ns": rec["start_ns"], "end_ns": rec["end_ns"], "mem_bytes": str(rec["host"]["mem_bytes"])}
got = {k: str(r[k]) if k in ("start_ns", "end_ns", "mem_bytes") else r[k] for k in want}
assert got == want and abs(r["idle_s"] - rec["idle_s"]) < 1e-6, (got, want, r)
PY
}
check "... and its row in ClickHouse's tracer.idle_hosts, the same period" wait_until 60 "the record's row" real_row
check "the host is idle again after the job" poll_until 30 idle_is yes
check "root's sweep of the archive: the real period under this host, its instance-hours" \
	expect_idle archive "$IDLE_FILE" - -- "$BUILD/tracer" -o socket="$TMP/none.sock" -o file="$IDLE_FILE" "${PRICES[@]}" sweep --since 30d
admin_only() { # admin_only ADMIN-CLI USER-CLI: admin_group sees the idle hosts, another user not
	"$1" "$UB" --since 30d --json >"$TMP/adm.json" && "$2" "$UB" --since 30d --json >"$TMP/usr.json" &&
	"$2" "$UB" --since 30d --by host --json >"$TMP/usrh.json" &&
	"$2" "$UB" --since 30d --by host --csv >"$TMP/usrh.csv" || return 1
	python3 - "$TMP/adm.json" "$TMP/usr.json" "$TMP/usrh.json" "$TMP/usrh.csv" <<'PY'
import json, sys
adm, usr, usrh = (json.load(open(p)) for p in sys.argv[1:4])
assert adm["all_users"] and adm["idle_hosts"]["rows"], adm
for a in (usr, usrh):
    assert not a["all_users"] and "idle_hosts" not in a and "idle_hosts_error" not in a, a
    assert all("idle_hours" not in r for r in a["rows"]), a
csv = open(sys.argv[4]).read()
assert "\n\n" not in csv and "idle_host" not in csv and "idle_core_hours" in csv, csv
PY
}
check "through tracerd (archive): admin_group sees the idle hosts, user B does not" admin_only acli ucli
check "the host is idle: a clean stop will end the period" idle_is yes
stop_tracerd
check "tracerd's stop ended the second period: its record is in the file" idle_records 2
check "both records: a job's, then the stop's, each consistent" \
	python3 "$IDLE" record "$IDLE_FILE" "$(python3 -c 'import socket; print(socket.gethostname())')"
check "the idle tracerd's file is valid against the schemas" \
	python3 "$TOP/tests/validate_summary.py" --min 1 "$IDLE_FILE"
# the stop's record may still be spooled for ClickHouse: a restart on the
# same spool delivers it
start_tracerd idle2 -o spool_dir="$TMP/idle.spool" -o sinks=file,clickhouse -o clickhouse_url="$CHURL" \
	-o retry_max_ms=1000 || exit 1
real_rows() { [ "$(clickhouse-client --port "$CH_TCP" -q "SELECT count() FROM tracer.idle_hosts FINAL WHERE instance_id = 'i-0fedcba987654321f'")" = 2 ]; }
check "both real periods are rows of tracer.idle_hosts" wait_until 60 "2 rows of the real host" real_rows
stop_tracerd

check "through the reader (datalake): admin_group sees the idle hosts, user B does not" admin_only racli rcli
check "the reader's datalake sweep for admin_group: the known hosts and the real period" \
	expect_idle datalake "$IDLE_FILE" -- racli "$UA" --since 30d

no_sanitizer_reports "no sanitizer report in tracerd's and the reader's logs" "${TRACERD_LOGS[@]}" "$RLOG"
finish
