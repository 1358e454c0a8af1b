# shares.sh - sourced by run.sh (the shared-node suite): per-user shares
# no user can use up for the others.  As two unprivileged users, the
# first exhausts each limit (open jobs, registration rate, followed
# processes, archive workers, spool space); the second's registrations,
# jobs and queries still succeed, root's jobs keep their part of the
# process table, and each limit is counted in `tracer status`.  Needs run.sh's U1, U2, UPY, as, OWNED_PIDS and tests/lib.sh.

# the users run copies in a directory they can read (the tree may be root's only)
SBIN=$TMP/shares-bin
install -d -m 0755 "$SBIN"
install -m 0755 "$BUILD/tracer" "$TOP/tests/hardening/req.py" "$TOP/tests/hardening/regflood.py" \
	"$TOP/tests/hardening/slowread.py" "$SBIN/"

# ucli2 USER ARGS...: the tracer CLI as USER against the running tracerd
ucli2() { local u=$1; shift; as "$u" "$SBIN/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" "$@"; }
# shares_field KEY: the shares object's KEY in tracer status
shares_field() {
	tr_cli status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["shares"][sys.argv[1]])' "$1"
}
shares_positive() { [ "$(shares_field "$1" 2>/dev/null)" -gt 0 ] 2>/dev/null; }
# start_owned VAR CMD...: CMD in the background, its pid in VAR and OWNED_PIDS
start_owned() {
	local var=$1 u; shift
	if [ "$1" = as ]; then
		# setpriv execs CMD, so the pid is CMD's own: `as` backgrounded
		# is a subshell, and its child outlived the subshell's kill
		u=$2; shift 2
		setpriv --reuid="$u" --regid="$u" --init-groups -- "$@" &
	else
		"$@" &
	fi
	printf -v "$var" '%s' "$!"
	OWNED_PIDS+=("$!")
}
stop_owned() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

echo "== shares: open jobs per user (max_jobs_per_user)"
stop_tracerd
start_tracerd sj -o max_jobs_per_user=3 || exit 1
HOLDERS=()
for i in 1 2 3 4; do
	start_owned HP as "$U1" "$UPY" "$SBIN/req.py" "$TRACERD_SOCK" \
		'{"op":"register","v":1,"identity":{"task_name":"holder"},"stays":true}' pause \
		>"$TMP/$U1/hold$i.out" 2>&1 </dev/null
	HOLDERS+=("$HP")
	wait_until 20 "holder $i's reply" test -s "$TMP/$U1/hold$i.out"
done
check "the first user's 3 jobs open" sh -c "[ \$(cat '$TMP/$U1'/hold[123].out | grep -c '\"ok\":true') -eq 3 ]"
check "the first user's 4th job is refused at max_jobs_per_user" grep -q 'max_jobs_per_user' "$TMP/$U1/hold4.out"
ucli2 "$U2" run --job-file "$TMP/$U2/jobs.job" -- true 2>"$TMP/$U2/jobs.err"
check "the second user's job is recorded meanwhile" test -s "$TMP/$U2/jobs.job"
wait_until 20 "the second user's summary" summary_of_job "$TMP/$U2/jobs.job"
check "tracer status counts the refusal (shares.refused_user_jobs)" shares_positive refused_user_jobs
for p in "${HOLDERS[@]}"; do stop_owned "$p"; done

echo "== shares: registration rate per uid, spent after the identity check"
stop_tracerd
start_tracerd sr -o max_jobs_per_user=4096 || exit 1
# a flood of bogus registrations (a scheduler's identity: refused by the identity check)
rm -f "$TMP/stop-bogus"
start_owned BOGUS as "$U1" "$UPY" "$SBIN/regflood.py" "$TRACERD_SOCK" "$TMP/stop-bogus" \
	"$TMP/$U1/bogus.count" '{"scheduler":"slurm","job_id":"1"}'
bogus_sent() { grep -Eq 'sent=([2-9][0-9]{2}|[0-9]{4,})' "$TMP/$U1/bogus.count"; }
wait_until 60 "200 bogus registrations of the first user" bogus_sent
reg "$U1" local 5151
check "the flooding user's own valid registration is accepted (bogus ones spent no token)" accepted
reg "$U2" local 5152
check "another user's registration is accepted during the flood" accepted
check "the bogus flood was still running (none was accepted)" sh -c "grep -q ' ok=0 ' '$TMP/$U1/bogus.count' && test ! -e '$TMP/stop-bogus' && ! grep -q 'rate=[1-9]' '$TMP/$U1/bogus.count'"
touch "$TMP/stop-bogus"
stop_owned "$BOGUS"
# a flood of valid registrations: the user's own bucket empties, no one else's
rm -f "$TMP/stop-valid"
start_owned VALID as "$U1" "$UPY" "$SBIN/regflood.py" "$TRACERD_SOCK" "$TMP/stop-valid" \
	"$TMP/$U1/valid.count" '{"task_name":"flood"}'
rate_refused() { grep -q 'rate=[1-9]' "$TMP/$U1/valid.count"; }
wait_until 60 "the first user's flood to meet the rate limit" rate_refused
U2_OK=0
for i in 1 2 3 4 5; do
	reg "$U2" local "rate-$i"
	accepted >/dev/null && U2_OK=$((U2_OK + 1))
done
check "the second user's 5 registrations during the flood are accepted ($U2_OK of 5)" test "$U2_OK" -eq 5
check "the first user's flood still ran meanwhile" test ! -e "$TMP/stop-valid"
touch "$TMP/stop-valid"
stop_owned "$VALID"
echo "    flood: $(cat "$TMP/$U1/valid.count")"
check "tracer status counts the rate refusals (shares.refused_rate)" shares_positive refused_rate

echo "== shares: processes followed per user (a quarter of max_procs by default)"
stop_tracerd
start_tracerd sp -o max_procs=1024 || exit 1
check "tracer status shows 256 processes per user" test "$(shares_field max_procs_per_user)" = 256
# more processes than the whole table, all alive at once; the script
# ends its children when it is told to (TERM)
cat >"$SBIN/many.sh" <<'EOF'
#!/bin/bash
trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
for i in $(seq "${2:-1100}"); do sleep 300 & done
echo $$ >"$1"
wait
EOF
chmod 0755 "$SBIN/many.sh"
rm -f "$TMP/$U1/many.pid"
start_owned MANY as "$U1" "$SBIN/tracer" -o socket="$TRACERD_SOCK" run --job-file "$TMP/$U1/many.job" -- \
	"$SBIN/many.sh" "$TMP/$U1/many.pid"
wait_until 120 "the first user's 1100 processes" test -s "$TMP/$U1/many.pid"
OWNED_PIDS+=("$(cat "$TMP/$U1/many.pid")")
ucli2 "$U2" run --job-file "$TMP/$U2/procs.job" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done'
wait_until 30 "the second user's summary" summary_of_job "$TMP/$U2/procs.job"
# summary_field JOBFILE EXPR: a field of the job's summary (python expression on s)
summary_field() {
	python3 - "$TRACERD_FILE" "$(cat "$1")" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s.get("job") == sys.argv[2]:
        print(eval(sys.argv[3]))
PY
}
U2_PROCS=$(summary_field "$TMP/$U2/procs.job" 's["processes"]["total"]')
U2_DROPS=$(summary_field "$TMP/$U2/procs.job" 's["drops"]["events"] + s["processes"]["over_cap"]')
check "the second user's job followed all its processes ($U2_PROCS of at least 11), none lost ($U2_DROPS)" \
	test "${U2_PROCS:-0}" -ge 11 -a "${U2_DROPS:-1}" = 0
check "tracer status counts the first user's forks over the cap (shares.forks_over_user_cap)" \
	shares_positive forks_over_user_cap
kill -TERM "$(cat "$TMP/$U1/many.pid")" 2>/dev/null
wait "$MANY" 2>/dev/null
wait_until 60 "the first user's summary" summary_of_job "$TMP/$U1/many.job"
U1_OVER=$(summary_field "$TMP/$U1/many.job" 's["processes"]["over_cap"]')
check "the first user's summary counts the processes not followed ($U1_OVER)" test "${U1_OVER:-0}" -gt 0

echo "== shares: root's jobs keep their part of the table (all users together at most 3/4)"
stop_tracerd
start_tracerd sq -o max_procs=1024 -o max_procs_per_user=500 || exit 1
check "tracer status shows 768 processes for all users together" test "$(shares_field max_procs_all_users)" = 768
MANYQ=()
for u in "$U1" "$U2"; do
	rm -f "$TMP/$u/manyq.pid"
	start_owned MP as "$u" "$SBIN/tracer" -o socket="$TRACERD_SOCK" run --job-file "$TMP/$u/manyq.job" -- \
		"$SBIN/many.sh" "$TMP/$u/manyq.pid" 520
	MANYQ+=("$MP")
	wait_until 120 "$u's 520 processes" test -s "$TMP/$u/manyq.pid"
	OWNED_PIDS+=("$(cat "$TMP/$u/manyq.pid")")
done
# root, as the SPANK plugin registers a Slurm step's processes
tr_cli run --job-file "$TMP/rootq.job" -- sh -c 'for i in $(seq 50); do /bin/true; done'
wait_until 30 "root's summary" summary_of_job "$TMP/rootq.job"
R_PROCS=$(summary_field "$TMP/rootq.job" 's["processes"]["total"]')
R_DROPS=$(summary_field "$TMP/rootq.job" 's["drops"]["events"] + s["processes"]["over_cap"]')
check "root's job followed all its processes ($R_PROCS of at least 51), none lost ($R_DROPS)" \
	test "${R_PROCS:-0}" -ge 51 -a "${R_DROPS:-1}" = 0
check "tracer status counts the forks over all users' cap (shares.forks_over_users_cap)" \
	shares_positive forks_over_users_cap
for u in "$U1" "$U2"; do kill -TERM "$(cat "$TMP/$u/manyq.pid")" 2>/dev/null; done
for p in "${MANYQ[@]}"; do wait "$p" 2>/dev/null; done

echo "== shares: archive workers, one per user at a time"
stop_tracerd
# an archive of the first user's jobs, too long to send while read slowly
python3 - "$TMP/sa.ndjson" "$(id -u "$U1")" "$(id -u "$U2")" <<'PY'
import json, sys
path, u1, u2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pad = "x" * 4000
with open(path, "w") as f:
    for uid, n in ((u1, 500), (u2, 1)):
        for i in range(n):
            f.write(json.dumps({"schema": "tracer.summary/1", "job": "arch-%d-%d" % (uid, i),
                                "identity": {"uid": uid, "task_name": "arch"},
                                "start": "2026-01-01T00:00:00.000Z",
                                "end": "2026-01-01T00:00:01.000Z", "pad": pad},
                               separators=(",", ":")) + "\n")
PY
chmod 0640 "$TMP/sa.ndjson"
start_tracerd sa -o file="$TMP/sa.ndjson" || exit 1
TRACERD_FILE=$TMP/sa.ndjson
SLOW=()
for i in 1 2; do
	start_owned SP as "$U1" "$UPY" "$SBIN/slowread.py" "$TRACERD_SOCK" '{"op":"summaries","v":1,"limit":0}' \
		"$TMP/$U1/slow$i.mark"
	SLOW+=("$SP")
done
wait_until 30 "the first user's first slow reply to start" sh -c "grep -qs reading '$TMP/$U1/slow1.mark' || grep -qs reading '$TMP/$U1/slow2.mark'"
in_progress() {
	tr_cli status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["archive_requests"]["in_progress"] >= 2 else 1)'
}
wait_until 30 "both of the first user's requests to be taken" in_progress
if ucli2 "$U2" jobs --json >"$TMP/$U2/arch.json" 2>"$TMP/$U2/arch.err"; then
	check "the second user's tracer jobs is answered (their own job)" grep -q "arch-$(id -u "$U2")-0" "$TMP/$U2/arch.json"
else
	fail "the second user's tracer jobs failed while the first user's requests ran: $(head -c 300 "$TMP/$U2/arch.err")"
fi
# the order, not a time: the second user's answer is the only one tracerd
# finished (served), none of the first user's requests had ended (each
# ends at the archive's 10 s reading deadline)
served_only() {
	tr_cli status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["archive_requests"]["served"] == 1 else 1)'
}
check "the second user's answer came before any of the first user's ended (served 1)" served_only
check "tracer status counts the request held back (shares.archive_held_for_fairness)" \
	shares_positive archive_held_for_fairness
for p in "${SLOW[@]}"; do stop_owned "$p"; done

echo "== shares: spool space, the largest share loses its oldest"
stop_tracerd
# nothing is delivered (an HTTP sink on a closed loopback port): the spool fills
start_tracerd ss -o sinks=http -o http_url=http://127.0.0.1:9/ -o spool_max_bytes=65536 || exit 1
ucli2 "$U2" run --job-file "$TMP/$U2/spool.job" -- true
spooled() { grep -qsF "$(cat "$1")" "$TMP/ss.spool"/*.rec; }
wait_until 30 "the second user's summary in the spool" spooled "$TMP/$U2/spool.job"
spool_dropped() { shares_positive spool_dropped; }
n=0
while ! spool_dropped && [ "$n" -lt 200 ]; do
	ucli2 "$U1" run --job-file "$TMP/$U1/flood.job" -- true 2>/dev/null
	n=$((n + 1))
done
wait_until 30 "the spool's cap to drop summaries" spool_dropped
echo "    the first user ran $n jobs; spool: $(tr_cli status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["delivery"]["spool"])')"
check "the second user's older summary is still in the spool" spooled "$TMP/$U2/spool.job"
check "tracer status counts the drops that spared a smaller share (shares.spool_share_spared)" \
	shares_positive spool_share_spared
stop_tracerd
