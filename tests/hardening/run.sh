#!/bin/bash
# run.sh BUILD - tracerd on a node shared by several users: the socket is
# made without a race, a read-only mount of its directory still works,
# scheduler identities are root's, one user cannot take another's job or
# process, what leaves tracerd has no raw control characters, a user's
# command lines cannot stall tracerd through redaction, secrets in every
# common form stay out of the summaries, and no user can use up a share
# that others need (shares.sh).  The
# user-facing checks run as two unprivileged test users (created here
# when missing, removed at the end).  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
U1=tracer-h1
U2=tracer-h2
ADM=tracer-hadm

cleanup() {
	# the flooding job execs until STOP exists (its shell outlives a
	# SIGKILL of tracer run)
	[ -n "${STOP:-}" ] && [ -d "${STOP%/*}" ] && touch "$STOP"
	kill_owned
	stop_tracerd
	# the strace case's tracerd keeps its programs pinned for a restart
	rm -rf "/sys/fs/bpf/tracer-hard-$$"
	remove_test_users
	remove_suite_tmp
}
need_root
suite_tmp hard
trap cleanup EXIT
need_built tracerd tracer
need_commands python3 pgrep strace unshare
# the users' own directories (job files); their python is the system's
make_test_users "$ADM" "$U1" "$U2"
UPY=/usr/bin/python3
need_built "$UPY"
# what the test users run, copied where they can read it (user_copy)
UTRACER=$(user_copy "$BUILD/tracer") || exit 1

echo "== the socket gets its mode at bind, never by a chmod that follows a symlink"
TRACERD_SOCK=$TMP/strace.sock
strace -f -qq -e trace=chmod,fchmodat -o "$TMP/strace.out" \
	"$BUILD/tracerd" -o socket="$TRACERD_SOCK" -o file="$TMP/strace.ndjson" -o sinks=file \
	-o spool_dir="$TMP/strace.spool" -o state_dir="$TMP/strace.state" \
	-o pin_dir=/sys/fs/bpf/tracer-hard-$$ >"$TMP/strace.log" 2>&1 &
STRACE_PID=$!
OWNED_PIDS+=("$STRACE_PID")
# tracerd itself is strace's child: SIGTERM goes to it (strace would detach)
wait_until 30 "strace to start tracerd" pgrep -P "$STRACE_PID" -x tracerd
TRACERD_PID=$(pgrep -P "$STRACE_PID" -x tracerd)
[ -n "$TRACERD_PID" ] || TRACERD_PID=$STRACE_PID
listening_or_died() { test -S "$TRACERD_SOCK" || proc_gone "$TRACERD_PID"; }
poll_until 60 listening_or_died
test -S "$TRACERD_SOCK" || { fail "tracerd under strace did not listen:"; sed 's/^/    /' "$TMP/strace.log"; }
check "socket mode is srw-rw-rw-" test "$(stat -c %A "$TRACERD_SOCK")" = srwxrwxrwx -o \
	"$(stat -c %A "$TRACERD_SOCK")" = srw-rw-rw-
if [ ! -s "$TMP/strace.out" ]; then
	fail "strace recorded nothing (it records the BPF pin directory's chmod at least)"
elif grep -q "$TRACERD_SOCK" "$TMP/strace.out"; then
	fail "tracerd changed the socket's mode by path after bind:"; grep "$TRACERD_SOCK" "$TMP/strace.out" | sed 's/^/    /'
else
	pass "no chmod of the socket path"
fi
stop_tracerd
wait "$STRACE_PID" 2>/dev/null

start_tracerd h || exit 1

echo "== a read-only mount of the socket directory (AWS Batch job definition)"
check "job-definition.json mounts /run/tracer read-only" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["containerProperties"]
vol = {v["name"]: v["host"]["sourcePath"] for v in d["volumes"]}
mp = [m for m in d["mountPoints"] if vol.get(m["sourceVolume"]) == "/run/tracer"]
sys.exit(0 if mp and all(m.get("readOnly") is True for m in mp) else 1)' "$TOP/contrib/aws-batch/job-definition.json"
check "nextflow.config mounts /run/tracer read-only" grep -q "'/run/tracer:/run/tracer:ro'" "$TOP/contrib/aws-batch/nextflow.config"
mkdir "$TMP/ro"
check "a job registers through a read-only bind mount of the socket directory" \
	unshare -m sh -c "mount --bind '$TMP' '$TMP/ro' && mount -o remount,bind,ro '$TMP/ro' &&
		! touch '$TMP/ro/x' 2>/dev/null &&
		'$BUILD/tracer' -o socket='$TMP/ro/h.sock' -o file='$TRACERD_FILE' run --job-file '$TMP/ro.job' -- true &&
		test -s '$TMP/ro.job'"
REQ=$(user_copy "$TOP/tests/hardening/req.py") || exit 1
# reg AS_USER SCHEDULER JOB_ID [STEP]: one registration, its reply in REPLY
reg() {
	local u=$1 sched=$2 job=$3 step=${4:-}
	local ident="{\"scheduler\":\"$sched\",\"job_id\":\"$job\"${step:+,\"step_id\":\"$step\"}}"
	REPLY=$(as "$u" "$UPY" "$REQ" "$TRACERD_SOCK" "{\"op\":\"register\",\"v\":1,\"identity\":$ident}" 2>&1)
}
refused() { case $REPLY in *'"ok":false'*) return 0;; esac; echo "reply: $REPLY"; return 1; }
accepted() { case $REPLY in *'"ok":true'*) return 0;; esac; echo "reply: $REPLY"; return 1; }

echo "== scheduler identities are root's, in any case"
for sched in slurm Slurm SLURM " slurm" 'slurm\u200b' 'slurm\u00a0' '\u0455lurm' 'slurm\n' aws-batch AWS-Batch host; do
	reg "$U1" "$sched" 4242 0
	check "a user cannot register scheduler '$sched'" refused
done
reg "$U1" local 4242 0
check "a user registers a local job" accepted

echo "== a user cannot squat the key of a job the scheduler is about to register"
reg "$U1" aws-batch job-squat
check "the user's aws-batch registration is refused" refused
reg root aws-batch job-squat
check "the real aws-batch job then registers" accepted

echo "== a user's job named like a Slurm step does not shadow it in tracer show"
# root (as the SPANK plugin would) records Slurm step 777.batch, then the
# user records a job named 777.batch after it
SLURM_REPLY=$(python3 "$REQ" "$TRACERD_SOCK" '{"op":"register","v":1,"identity":{"scheduler":"slurm","job_id":"777","step_id":"batch","task_name":"real"}}')
SLURM_UID=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["job"])' "$SLURM_REPLY")
python3 "$REQ" "$TRACERD_SOCK" "{\"op\":\"end\",\"v\":1,\"job\":\"$SLURM_UID\",\"status\":0}" >/dev/null
wait_until 20 "the Slurm step's summary" grep -q "$SLURM_UID" "$TRACERD_FILE"
as "$U1" "$UTRACER" -o socket="$TRACERD_SOCK" run --name 777.batch --job-file "$TMP/$U1/shadow.job" -- true
wait_until 20 "the user's job summary" summary_of_job "$TMP/$U1/shadow.job"
show_job_is() { # show_job_is NAME JOB_UID [tracer args...]: tracer show NAME --json is that job
	local name=$1 want=$2; shift 2
	"$@" show --json "$name" | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["job"] == sys.argv[1] else 1)' "$want"
}
check "tracer show 777.batch is the Slurm step" show_job_is 777.batch "$SLURM_UID" "$BUILD/tracer" -o file="$TRACERD_FILE"

echo "== a user cannot tag another user's process through pid reuse"
check "registration from a pid now another user's process is refused" \
	python3 "$TOP/tests/hardening/pidreuse.py" "$TRACERD_SOCK" "$U1" "$U2"

echo "== registrations from many uids: one node-wide bound and rate, counted; root still served"
FLOOD=$(python3 "$TOP/tests/hardening/flood.py" "$TRACERD_SOCK")
echo "    $FLOOD"
flood_ok() {
	python3 - "$FLOOD" <<'PY'
import re, sys
f = dict(re.findall(r"(\w+)=(\w+)", sys.argv[1]))
# the rate limit itself: tests/kernel/test_daemon_admission.c (a loaded
# machine forks too slowly here to burst reliably)
ok = (int(f["accepted"]) <= 256 and int(f["refused_limit"]) > 0 and f["other"] == "0" and f["root"] == "ok")
sys.exit(0 if ok else 1)
PY
}
check "at most 256 user jobs open over 400 uids, root's registration served" flood_ok
status_counts() {
	tr_cli status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["socket_stats"]
sys.exit(0 if s["refused_node_limit"] > 0 else 1)'
}
check "tracer status counts the refusals" status_counts
wait_until 60 "the flood's jobs to close" sh -c "[ \$('$BUILD/tracer' -o socket='$TRACERD_SOCK' status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"jobs\"][\"open\"])') -le 1 ]"

echo "== control characters never reach the log or the terminal raw"
EVIL=$(printf 'evil\033]0;owned\007\033[2J\r\x9b31m')
as "$U1" "$UTRACER" -o socket="$TRACERD_SOCK" run --name "$EVIL" --job-file "$TMP/$U1/evil.job" -- true
wait_until 20 "the summary of the job with control characters" summary_of_job "$TMP/$U1/evil.job"
# no_raw_controls FILE: no C0 control but newline and tab, no DEL, no C1
no_raw_controls() {
	python3 -c '
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
sys.exit(1 if bad or not data else 0)' "$1"
}
check "tracerd's log has no raw control character" no_raw_controls "$TRACERD_LOG"
check "tracerd's log shows the name escaped" grep -qF 'evil\x1b]0;owned\x07' "$TRACERD_LOG"
"$BUILD/tracer" -o file="$TRACERD_FILE" show "$(cat "$TMP/$U1/evil.job")" >"$TMP/evil.show" 2>&1
check "tracer show prints no raw control character" no_raw_controls "$TMP/evil.show"
check "tracer show prints the name escaped" grep -qF 'evil\x1b]0;owned' "$TMP/evil.show"
"$BUILD/tracer" -o file="$TRACERD_FILE" jobs >"$TMP/evil.jobs" 2>&1
check "tracer jobs prints no raw control character" no_raw_controls "$TMP/evil.jobs"

echo "== the systemd unit"
if command -v systemd-analyze >/dev/null; then
	# verify the unit as installed, with the binary of this build
	mkdir -p "$TMP/unit"
	sed "s|^\(ExecStart\(Pre\)\{0,1\}\)=/usr/sbin/tracerd|\1=$BUILD/tracerd|" "$TOP/contrib/systemd/tracerd.service" >"$TMP/unit/tracerd.service"
	check "systemd-analyze verify: no warning" sh -c "out=\$(systemd-analyze verify --man=no '$TMP/unit/tracerd.service' 2>&1); echo \"\$out\"; [ -z \"\$out\" ]"
	unit_has() { grep -qx "$1" "$TOP/contrib/systemd/tracerd.service"; }
	for line in Type=notify NoNewPrivileges=yes ProtectSystem=strict PrivateTmp=yes "Documentation=man:tracerd(8) man:tracer.conf(5)" \
		ProtectKernelTunables=yes ProtectControlGroups=yes DevicePolicy=closed TasksMax=64 MemoryMax=1G \
		"SystemCallFilter=~ptrace process_vm_readv process_vm_writev open_by_handle_at pidfd_getfd" \
		"ExecStartPre=/usr/sbin/tracerd --check-config -c /etc/tracer/tracer.conf"; do
		check "unit has $line" unit_has "$line"
	done
	check "unit bounds its capabilities" grep -q "^CapabilityBoundingSet=CAP_" "$TOP/contrib/systemd/tracerd.service"
	check "unit has StartLimitIntervalSec and StartLimitBurst" sh -c "grep -q '^StartLimitIntervalSec=' '$TOP/contrib/systemd/tracerd.service' && grep -q '^StartLimitBurst=' '$TOP/contrib/systemd/tracerd.service'"
	EXPOSURE=$(systemd-analyze security --offline=yes "$TMP/unit/tracerd.service" 2>&1 | sed -n 's/.*Overall exposure level for tracerd.service: \([0-9.]*\).*/\1/p')
	check "unit has no Nice= (jobs keep their share)" not grep -q "^Nice=" "$TOP/contrib/systemd/tracerd.service"
	echo "    systemd-analyze security: exposure $EXPOSURE (the unit before hardening: 9.6, then 5.3)"
	check "exposure level at most 4.5 (was 9.6, then 5.3)" awk -v e="$EXPOSURE" 'BEGIN { exit !(e != "" && e <= 4.5) }'
else
	fail "systemd-analyze is not installed (package systemd)"
fi

echo "== READY=1 reaches the service manager once tracerd listens"
NSOCK=$TMP/notify.sock
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); s.settimeout(60)
print(s.recv(256).decode(), flush=True)' "$NSOCK" >"$TMP/notify.out" &
NOTIFY_PID=$!
OWNED_PIDS+=("$NOTIFY_PID")
wait_until 60 "the notify listener" test -S "$NSOCK"
stop_tracerd
NOTIFY_SOCKET=$NSOCK start_tracerd n || exit 1
wait_until 30 "READY=1 from tracerd" grep -qx "READY=1" "$TMP/notify.out"
# the socket answered before READY=1 was read: start_tracerd checked status
check "tracerd sent READY=1" grep -qx "READY=1" "$TMP/notify.out"

echo "== privacy: a second user sees neither the first's jobs nor their argv"
stop_tracerd
start_tracerd p -o admin_group="$ADM" || exit 1
MARK=u1-private-MARK-$$
as "$U1" "$UTRACER" -o socket="$TRACERD_SOCK" run --name "$MARK" --job-file "$TMP/$U1/priv.job" -- \
	/bin/sh -c "exec sleep 30 # ARGV-$MARK" &
PRIV_PID=$!
OWNED_PIDS+=("$PRIV_PID")
u1_open() { tr_cli status --json | grep -q "$MARK"; }
wait_until 20 "the first user's job to be open" u1_open
# every way a user asks: status (text and JSON), jobs, show, and the files
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" "$@" 2>&1; }
sees_mark() { grep -q "$MARK"; }
owner_sees() { local o; o=$(ucli "$U1" status --json); echo "$o" | grep -q "$MARK" || { echo "$o" | head -c 600; return 1; }; }
check "the owner sees their running job in tracer status" owner_sees
for cmd in "status --json" "status" "jobs" "jobs --json"; do
	out=$(ucli "$U2" $cmd)
	if echo "$out" | sees_mark; then fail "tracer $cmd of another user shows the job"; else pass "tracer $cmd of another user does not show the running job"; fi
done
out=$(setpriv --reuid="$U2" --regid="$U2" --groups="$ADM" -- "$UTRACER" -o socket="$TRACERD_SOCK" status --json 2>&1)
if echo "$out" | sees_mark; then pass "a member of admin_group sees every job in tracer status"; else fail "a member of admin_group does not see the job"; fi
SLEEP_PID=$(pgrep -f "ARGV-$MARK" | head -n 1)
if [ -n "$SLEEP_PID" ]; then kill -TERM "$SLEEP_PID"; else kill -TERM "$PRIV_PID"; fi
wait "$PRIV_PID" 2>/dev/null
wait_until 30 "the first user's summary" summary_of_job "$TMP/$U1/priv.job"
U1_JOB=$(cat "$TMP/$U1/priv.job")
# show NAME may echo the name it was asked for: the job's id and argv are what must not show
for cmd in "jobs" "jobs --json" "show $MARK" "show --json $MARK" "show $U1_JOB" "show --json last" "show last"; do
	out=$(ucli "$U2" $cmd)
	case $cmd in show\ *$MARK) leak="ARGV-$MARK|$U1_JOB";; *) leak="$MARK|$U1_JOB";; esac
	case $cmd in *"$U1_JOB") leak="ARGV-$MARK";; esac
	if echo "$out" | grep -Eq "$leak"; then fail "tracer $cmd of another user shows the finished job"; else pass "tracer $cmd of another user does not show the finished job"; fi
done
# every file tracerd wrote that holds the job: unreadable by the other user
# (tracerd's log here is this script's redirection; a service logs to the journal)
files=$(grep -rl "$MARK" "$TMP" 2>/dev/null | grep -v "/$U1/" | grep -v "\.log$")
[ -n "$files" ] || fail "no file holds the job's summary (the test would prove nothing)"
for f in $files; do
	if as "$U2" cat "$f" >/dev/null 2>&1; then fail "another user can read $f"; else pass "another user cannot read $(basename "$f")"; fi
done
check "the archive belongs to the admin group, mode 0640" test "$(stat -c '%G %a' "$TRACERD_FILE")" = "$ADM 640"
check "a member of admin_group reads the archive" setpriv --reuid="$U2" --regid="$U2" --groups="$ADM" -- cat "$TRACERD_FILE"

echo "== a user's hostile argv cannot stall tracerd (redaction linear, records in batches)"
stop_tracerd
# the ring buffer holds the whole flood (16 MiB): a drop then means records
# tracerd lost, not a machine too busy to schedule it for a moment
start_tracerd stall -o argv_max=4096 -o ringbuf_bytes=16777216 || exit 1
# execs each with 4 KiB of '=:' (the argv_max ceiling): once quadratic
# to redact, 2.3 s an exec.  The job waits for GO, writes STARTED after
# its first exec, execs until both 1,000 are done and STOP exists, then
# writes DONE: stall.py's replies all come while the flood runs (it
# creates STOP only once they are counted)
GO=$TMP/$U1/stall.go
STARTED=$TMP/$U1/stall.started
STOP=$TMP/$U1/stall.stop
DONE=$TMP/$U1/stall.done
cat >"$TMP/$U1/storm.sh" <<STORM
#!/bin/sh
A=\$(printf '=:%.0s' \$(seq 2043))
while [ ! -e '$GO' ]; do sleep 0.01; done
/bin/true "\$A"
: >'$STARTED'
i=1
while [ \$i -lt 1000 ] || [ ! -e '$STOP' ]; do /bin/true "\$A"; i=\$((i + 1)); done
echo \$i >'$DONE'
STORM
chmod 0755 "$TMP/$U1/storm.sh"
as "$U1" "$BUILD/tracer" -o socket="$TRACERD_SOCK" run --name stall-storm --job-file "$TMP/$U1/storm.job" -- \
	/bin/sh "$TMP/$U1/storm.sh" &
STORM_PID=$!
OWNED_PIDS+=("$STORM_PID")
wait_until 20 "the flooding job to register" test -s "$TMP/$U1/storm.job"
STALL=$(python3 "$TOP/tests/hardening/stall.py" "$TRACERD_SOCK" "$GO" "$STARTED" "$STOP" 100)
STALL_RC=$?
touch "$STOP" # stall.py made it, unless it failed before: the flood ends
echo "$STALL" | sed 's/^/    /'
check "100 Slurm registrations and 20 status requests answered while the hostile execs ran, none unanswered (30 s each)" \
	test "$STALL_RC" = 0
wait_until 120 "the flooding job to end once let" test -s "$DONE" && echo "    the flood ran $(cat "$DONE") execs"
wait "$STORM_PID" 2>/dev/null
wait_until 60 "the flooding job's summary" summary_of_job "$TMP/$U1/storm.job"
storm_summary_ok() {
	python3 - "$TRACERD_FILE" "$(cat "$TMP/$U1/storm.job")" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [x for x in s if x.get("job") == sys.argv[2]][0]
print("processes", s["processes"]["total"], "drops", s["drops"])
sys.exit(0 if s["processes"]["total"] >= 1000 and s["drops"]["events"] == 0 else 1)
PY
}
check "the flooding job has its 1,000 processes and no dropped event" storm_summary_ok
no_drops() {
	tr_cli status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
k = s["kernel"]
print("drops", s["drops"], "execs", k["execs"])
sys.exit(0 if s["drops"] == 0 and k["drops_ringbuf"] == 0 and k["execs"] >= 1000 else 1)'
}
check "tracer status: no event dropped" no_drops

echo "== secrets in every common form stay out of the summary"
# each process names its tool in argv[0] (exec -a): the tool's own rules apply
cat >"$TMP/$U1/secrets.sh" <<'FORMS'
#!/bin/bash
t=/bin/true
(exec -a sshpass $t -pS3CRe2e01 ssh h)
(exec -a sudo $t sshpass -p S3CRe2e02 ssh h)
(exec -a bash $t -c "mysql -pS3CRe2e03 db")
(exec -a curl $t -fsSLu user:S3CRe2e04 https://h/)
(exec -a psql $t -c "ALTER USER bob PASSWORD 'S3CRe2e05'")
(exec -a env $t DB_PASS=S3CRe2e06 x)
(exec -a az $t --connection-string "AccountName=a;AccountKey=S3CRe2e07;EndpointSuffix=c")
(exec -a curl $t -H "X-Auth-Key: S3CRe2e08" https://h/)
(exec -a timeout $t 60 mysql -pS3CRe2e09 db)
(exec -a docker $t exec db mysql -pS3CRe2e10)
(exec -a lftp $t -u bob,S3CRe2e11 sftp://h)
(exec -a ldapsearch $t -x -w S3CRe2e12)
(exec -a sh $t -c "tool --password S3CRe2e13")
(exec -a tool $t --passes KEEPe2e-3 key=KEEPe2e-value)
(exec -a sort $t -t: -k2 KEEPe2e-file)
FORMS
chmod 0755 "$TMP/$U1/secrets.sh"
as "$U1" "$BUILD/tracer" -o socket="$TRACERD_SOCK" run --name secret-forms --job-file "$TMP/$U1/secrets.job" -- \
	/bin/bash "$TMP/$U1/secrets.sh"
wait_until 30 "the summary of the job with secrets" summary_of_job "$TMP/$U1/secrets.job"
grep -F "$(cat "$TMP/$U1/secrets.job")" "$TRACERD_FILE" >"$TMP/secrets.summary"
check "the summary was written" test -s "$TMP/secrets.summary"
leaks=$(grep -o 'S3CRe2e[0-9]*' "$TMP/secrets.summary" | sort -u | tr '\n' ' ')
if [ -n "$leaks" ]; then fail "secrets in the summary: $leaks"; else pass "none of the 13 secrets is in the summary"; fi
for keep in --passes KEEPe2e-3 key=KEEPe2e-value -t: KEEPe2e-file; do
	check "the look-alike '$keep' is kept" grep -qF -- "\"$keep\"" "$TMP/secrets.summary"
done
check "the summary has the processes of the forms (sshpass among them)" grep -qF '"sshpass"' "$TMP/secrets.summary"

. "$TOP/tests/hardening/shares.sh"

finish
