# lake.sh - the cluster view through the datalake, sourced by run.sh:
# tracerd's clickhouse sink delivers the summaries of a two-node job of
# two srun steps, submitted by user nobody, into a private ClickHouse
# (Debian's 18.16, the newest schema version); a tracerd --reader
# answers `tracer show JOB` of nobody with the one job rolled up (its
# five summaries: the batch step and two steps on both nodes, the
# allocation once per node) and another user with nothing; `tracer
# report --clickhouse` counts that job once, not once per summary.
# tracer sweep over the suite's real jobs: every row carries tracerd's
# node increments (the one-step job's marked single), and the datalake's
# sweep (which sums them) gives the rows the archive's fold gives.
# (Both slurmd's of the test cluster run on this one machine under one
# tracerd: the sweep, which keys a node by its host name, sees one node
# where the job view, keyed by Slurm's node name, sees two.)
# lake_setup before tracerd_start, lake_checks once the job's summaries
# are in the file sink, lake_stop from the cleanup.

LAKE_TCP=18711 LAKE_HTTP=18734
LAKE_URL=http://127.0.0.1:$LAKE_HTTP/
LAKE_READER_PID=""
LAKE_OTHER=tracer-lk
MADE_USERS=()
MADE_GROUP=

# shellcheck source=tests/delivery/clickhouse.sh
. "$ROOT/tests/delivery/clickhouse.sh"

# a ClickHouse at schema version 6 and the sink's lines for tracerd
lake_setup() {
	local c
	for c in clickhouse-server clickhouse-client useradd runuser; do
		command -v "$c" >/dev/null || { fail "$c is not installed"; return 1; }
	done
	ch_setup "$T/ch" "$LAKE_TCP" "$LAKE_HTTP"
	! ch_ping || { fail "something already answers on port $LAKE_HTTP"; return 1; }
	ch_start || return 1
	"$BUILD/tracer" -o clickhouse_url="$LAKE_URL" datalake migrate \
		--dir "$ROOT/contrib/clickhouse/migrations" >"$T/migrate.out" 2>&1 ||
		{ fail "tracer datalake migrate: $(tail -n 3 "$T/migrate.out")"; return 1; }
	CLUSTER_TRACERD_SINKS=file,clickhouse
	TRACERD_EXTRA_CONF=$(printf 'clickhouse_url = %s\nretry_max_ms = 2000' "$LAKE_URL")
	TMP=$T make_test_users tracer-lkg "$LAKE_OTHER" # its home under $T
	LAKE_TRACER=$(TMP=$T user_copy "$BUILD/tracer") || { fail "cannot copy tracer to $T"; return 1; }
}

lake_stop() {
	if [ -n "$LAKE_READER_PID" ]; then
		kill -TERM "$LAKE_READER_PID" 2>/dev/null
		wait_until 10 "the reader to exit" proc_gone "$LAKE_READER_PID" || kill -KILL "$LAKE_READER_PID" 2>/dev/null
		wait "$LAKE_READER_PID" 2>/dev/null
		LAKE_READER_PID=""
	fi
	ch_stop
	remove_test_users
}

# lake_submit: the two-node job of user nobody, its id in LJ
lake_submit() {
	LJ=$(cd / && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" \
		sbatch --parsable -J lakejob -N2 -c1 -o /dev/null --wrap "srun -N2 $B 2; srun -N2 $B 2")
	case $LJ in
	[0-9]*) ;;
	*) fail "sbatch of nobody gave no job id ('$LJ')"; LJ=""; return 1 ;;
	esac
}

lake_rows() { [ "$(clickhouse-client --port "$LAKE_TCP" -q "SELECT count() FROM tracer.jobs FINAL WHERE job_id = '$LJ'")" = "$1" ]; }
lake_reader_up() { proc_gone "$LAKE_READER_PID" || "$BUILD/tracer" -o socket="$T/reader.sock" status >/dev/null 2>&1; }
# as USER, tracer show --json JOB through the reader
lake_show() {
	(cd / && runuser -u "$1" -- "$LAKE_TRACER" -o socket="$T/reader.sock" \
		-o file="$T/nonexistent.ndjson" -o datalake=clickhouse show --json "$LJ")
}

lake_checks() {
	[ -n "$LJ" ] || return
	want_sums "$LJ" 5 || return
	wait_until 60 "job $LJ's 5 summaries in ClickHouse" lake_rows 5 || return
	pass "the sink delivered job $LJ's 5 summaries to ClickHouse"
	"$TRACERD" --reader -o socket="$T/reader.sock" -o rules="$ROOT/contrib/rules/tools.rules" \
		-o state_dir="$T/reader-state" -o spool_dir="$T/reader.spool" -o datalake=clickhouse \
		-o clickhouse_url="$LAKE_URL" >"$T/reader.log" 2>&1 </dev/null &
	LAKE_READER_PID=$!
	wait_until 30 "the reader to answer" lake_reader_up || return
	if lake_show nobody >"$T/lake-view.json" 2>"$T/lake-view.err"; then
		while IFS= read -r line; do
			case $line in
			ok\|*) pass "${line#ok|}" ;;
			*) fail "${line#bad|}" ;;
			esac
		done < <(python3 - "$T/lake-view.json" "$LJ" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
job = sys.argv[2]
def say(ok, what):
    print(("ok|" if ok else "bad|") + what)
i = v.get("identity", {})
say(i.get("job_id") == job and v.get("scope") == "job",
    f"reader, nobody: tracer show {job} is the whole job (job_id {i.get('job_id')}, scope {v.get('scope')})")
steps = sorted((s.get("step_id"), s.get("hostname") or s.get("host")) for s in v.get("steps", []))
say(len(steps) == 5, f"reader: its 5 summaries as steps ({steps})")
hosts = sorted(h["hostname"] for h in v.get("hosts", []))
say(hosts == ["tn1", "tn2"], f"reader: both nodes ({hosts})")
per_node = sum(h["alloc_cpus"] for h in v.get("hosts", []))
per_step = sum(s.get("alloc_cpus", 0) for s in v.get("steps", []))
cpus = i.get("allocation", {}).get("cpus")
say(cpus == per_node and cpus < per_step,
    f"reader: the allocation once per node ({cpus} CPUs; {per_node} over the nodes, {per_step} over the steps)")
say(i.get("user") == "nobody", f"reader: the job of nobody ({i.get('user')})")
PY
		)
	else
		fail "reader, nobody: tracer show $LJ failed: $(head -c 300 "$T/lake-view.err")"
	fi
	# the reader answers "no job": a refusal for any other reason is a FAIL
	if lake_show "$LAKE_OTHER" >"$T/lake-other.json" 2>&1; then
		fail "reader, $LAKE_OTHER: tracer show $LJ answered another user's job"
	elif grep -q "no job $LJ" "$T/lake-other.json"; then
		pass "reader, $LAKE_OTHER: no job $LJ (another user's)"
	else
		fail "reader, $LAKE_OTHER: $(head -c 300 "$T/lake-other.json")"
	fi
	"$BUILD/tracer" -o clickhouse_url="$LAKE_URL" report --clickhouse --by user --since 1d --csv \
		>"$T/lake-report.csv" 2>&1
	expect "report --clickhouse: nobody's two-node job counts once, not per summary" \
		"$(awk -F, '$1 == "nobody" { print $2 }' "$T/lake-report.csv")" 1
	lake_sweep
}

lake_q() { clickhouse-client --port "$LAKE_TCP" -q "$1"; }
# every summary of the archive file has its row in the datalake
lake_all_in() {
	[ "$(lake_q "SELECT count() FROM tracer.jobs FINAL")" = "$(python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and "record" not in json.loads(l)))' "$NDJSON")" ]
}
# KIND,SINGLE of each of job $1's rows in tracer.job_use, sorted
lake_incs() {
	lake_q "SELECT inc_kind, inc_single FROM tracer.job_use WHERE jk = '$1' ORDER BY sh FORMAT CSV" |
		tr '\n' ' '
}
# the sweep of root by $1, from the datalake and from the archive file
lake_sweep_same() {
	"$BUILD/tracer" -o socket="$T/none.sock" -o file="$T/nonexistent.ndjson" -o datalake=clickhouse \
		-o clickhouse_url="$LAKE_URL" sweep --since 1d --by "$1" --json >"$T/sweep-lake-$1.json" &&
		"$BUILD/tracer" -o socket="$T/none.sock" -o file="$NDJSON" sweep --since 1d --by "$1" \
			--json >"$T/sweep-file-$1.json" || return 1
	python3 "$ROOT/tests/sweep/same_rows.py" "$T/sweep-lake-$1.json" "$T/sweep-file-$1.json"
}

lake_sweep() {
	wait_until 60 "every summary of the suite in ClickHouse" lake_all_in || return
	expect "job_use: the one-step job $J1's row has tracerd's increments, single" \
		"$(lake_incs "$J1")" "1,1 "
	expect "job_use: the 4 rows of $J2 (batch and 3 steps) have increments, none single" \
		"$(lake_incs "$J2")" "1,0 1,0 1,0 1,0 "
	expect "job_use: the 5 rows of the two-node job $LJ have increments, none single" \
		"$(lake_incs "$LJ")" "1,0 1,0 1,0 1,0 1,0 "
	local by out
	for by in user host tool; do
		if out=$(lake_sweep_same "$by" 2>&1); then
			pass "sweep --by $by: the datalake's rows (increments) are the archive's ($out)"
		else
			fail "sweep --by $by: the datalake and the archive differ: $(echo "$out" | head -c 600)"
		fi
	done
}
