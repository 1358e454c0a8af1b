# lib.sh - shared shell functions of the integration suites: counting
# checks, the suite's preamble (root, temporary directory, what must be
# installed and built, test users, the pids to stop), waiting for a
# condition with a deadline, starting and stopping tracerd and a reader
# tracerd by pid, reading summaries.
# Sourced by bash scripts; start_tracerd and friends expect $BUILD (build
# dir), $TOP (source tree) and $TMP (the suite's temp dir).

PASSED=0
FAILED=0
# what the suite made or started, for its cleanup: test users and group
# (make_test_users, remove_test_users), background processes (kill_owned)
MADE_USERS=()
MADE_GROUP=
OWNED_PIDS=()

pass() { PASSED=$((PASSED + 1)); echo "PASS: $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*"; }
# check DESCRIPTION COMMAND...: pass when the command succeeds
check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then pass "$desc"; else fail "$desc"; echo "$out" | sed 's/^/    /'; fi
}
finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
# checker_results NAME: the lines a checker NAME (a Python script) prints,
# read on stdin: "ok|WHAT" passes, "bad|WHAT: why" fails, "table|LINE" is
# shown indented; any other line (a traceback) fails, and so does a
# checker that checked nothing.
checker_results() {
	local name=$1 line checked=0
	while IFS= read -r line; do
		case $line in
		ok\|*) pass "${line#ok|}"; checked=1 ;;
		bad\|*) fail "${line#bad|}"; checked=1 ;;
		table\|*) echo "    ${line#table|}" ;;
		*) fail "$name: $line" ;;
		esac
	done
	[ "$checked" = 1 ] || fail "$name checked nothing"
}

# need_root [WHY]: exits the suite with a FAIL unless run as root
need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL: this suite needs root (${1:-BPF, cgroups})"; exit 1
	fi
}

# ---- the suite's preamble ----

# suite_tmp NAME: the suite's temporary directory, in TMP
# (/tmp/tracer-NAME.XXXXXX), mode 0755: the test users reach the sockets
# and the copies of user_copy through it.  Exits the suite when it cannot.
suite_tmp() {
	TMP=$(mktemp -d "/tmp/tracer-$1.XXXXXX") || { echo "FAIL: mktemp: cannot create a temporary directory"; exit 1; }
	chmod 0755 "$TMP" || { echo "FAIL: cannot make $TMP readable (chmod 0755)"; exit 1; }
}

# remove_suite_tmp: TMP removed, unless KEEP_TMP is set or a check
# failed (then its logs are kept, and said where)
remove_suite_tmp() {
	[ -n "${TMP:-}" ] && [ -d "$TMP" ] || return 0
	if [ -n "${KEEP_TMP:-}" ] || [ "$FAILED" -ne 0 ]; then
		echo "logs kept in $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}

# need_commands COMMAND...: exits the suite with a FAIL naming the first
# one that is not installed
need_commands() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null ||
			{ echo "FAIL: $c is not installed (scripts/install-deps.sh test installs it)"; exit 1; }
	done
}

# need_built FILE...: exits the suite with a FAIL naming the first build
# product (under $BUILD unless absolute) that is missing
need_built() {
	local f
	for f in "$@"; do
		case $f in /*) ;; *) f=$BUILD/$f ;; esac
		[ -x "$f" ] || { echo "FAIL: $f missing (make all)"; exit 1; }
	done
}

# kill_owned: SIGKILL every process in OWNED_PIDS, and reap it
kill_owned() {
	local p
	for p in "${OWNED_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	OWNED_PIDS=()
}

# as USER COMMAND...: run a command with that user's uid, gid and groups
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"; }

# ---- cgroups ----

# cpu_quota_cgroup NAME QUOTA_US PERIOD_US: a cgroup NAME with that CFS
# quota where the cpu controller is: a v1 hierarchy of its own ("cpu")
# or shared with cpuacct ("cpu,cpuacct"), found in /proc/self/mountinfo,
# else v2 (cpu.max).  Sets CPU_CG (its directory, for cgroup.procs and
# rmdir) and CPU_CG_LAYOUT (what was found); 1 when it cannot.
cpu_quota_cgroup() {
	local mnt opts
	CPU_CG= CPU_CG_LAYOUT=
	read -r mnt opts < <(awk '{ for (i = 7; i <= NF && $i != "-"; i++); if ($(i + 1) != "cgroup") next
		n = split($(i + 3), o, ","); for (k = 1; k <= n; k++) if (o[k] == "cpu") { print $5, $(i + 3); exit } }' /proc/self/mountinfo)
	if [ -n "$mnt" ]; then
		CPU_CG=$mnt/$1 CPU_CG_LAYOUT="v1 cpu controller at $mnt ($opts)"
		mkdir "$CPU_CG" && echo "$3" >"$CPU_CG/cpu.cfs_period_us" && echo "$2" >"$CPU_CG/cpu.cfs_quota_us"
	elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
		CPU_CG=/sys/fs/cgroup/$1 CPU_CG_LAYOUT="v2 cpu.max"
		{ [ -d "$CPU_CG" ] || mkdir "$CPU_CG"; } && echo "$2 $3" >"$CPU_CG/cpu.max"
	else
		echo "no cpu controller: neither a v1 mount with cpu nor cpu in v2's subtree_control" >&2
		return 1
	fi
}

# ---- waiting for something, with a deadline ----

# microseconds of CLOCK_REALTIME, without a fork
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$((10#$t))"; }

# poll_until SECONDS COMMAND...: run COMMAND every 20 ms until it succeeds.
# 0 as soon as it does, 1 when SECONDS (may be fractional) pass first.
# Its output is discarded; the last one is kept in POLL_OUT.
poll_until() {
	local end
	end=$(($(now_us) + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }')))
	shift
	while :; do
		POLL_OUT=$("$@" 2>&1) && return 0
		[ "$(now_us)" -ge "$end" ] && return 1
		sleep 0.02
	done
}

# wait_until SECONDS DESCRIPTION COMMAND...: poll_until, and on timeout
# a FAIL line saying what did not happen (with COMMAND's last output).
wait_until() {
	local secs=$1 desc=$2
	shift 2
	poll_until "$secs" "$@" && return 0
	fail "timed out after $secs s waiting for $desc"
	[ -n "$POLL_OUT" ] && echo "$POLL_OUT" | tail -n 5 | sed 's/^/    /'
	return 1
}

# free_port FIRST LAST [TAKEN...]: the first TCP port of FIRST-LAST that
# nothing listens on (another copy of a suite, a leftover server) and
# that is not one of TAKEN; 1 when there is none
free_port() {
	local first=$1 last=$2 p t
	shift 2
	for p in $(seq "$first" "$last"); do
		for t in "$@"; do [ "$p" = "$t" ] && continue 2; done
		ss -ltnH "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# not COMMAND...: succeeds when COMMAND fails (for poll_until/wait_until)
not() { ! "$@"; }

# proc_gone PID: the process has exited (a zombie counts as gone)
proc_gone() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# ---- tracerd ----

# start_tracerd NAME [extra -o options...]: config in $TMP, pid in
# TRACERD_PID, log in TRACERD_LOG (every one so far in TRACERD_LOGS);
# returns once tracerd answers a status request.  Its kernel
# state (pins) and journal of open jobs are the suite's own.
TRACERD_PINS=/sys/fs/bpf/tracer-test-$$
start_tracerd() {
	name=$1; shift
	TRACERD_SOCK=$TMP/$name.sock
	TRACERD_FILE=$TMP/$name.ndjson
	TRACERD_LOG=$TMP/$name.log
	TRACERD_LOGS+=("$TRACERD_LOG")
	"$BUILD/tracerd" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" -o sinks=file \
		-o spool_dir="$TMP/$name.spool" \
		-o pin_dir="$TRACERD_PINS" -o state_dir="$TMP/tracerd-state" \
		-o rules="$TOP/contrib/rules/tools.rules" \
		"$@" >>"$TRACERD_LOG" 2>&1 &
	TRACERD_PID=$!
	# loading and attaching the BPF programs takes a moment; a daemon
	# that died stops the wait at once
	poll_until 30 tracerd_answers_or_died
	if ! proc_gone "$TRACERD_PID" && tr_cli status >/dev/null 2>&1; then
		return 0
	fi
	fail "tracerd did not start (no status reply within 30 s); its log:"
	sed 's/^/    /' "$TRACERD_LOG"
	stop_tracerd
	return 1
}
tracerd_answers_or_died() { proc_gone "$TRACERD_PID" || tr_cli status >/dev/null 2>&1; }

# stop_tracerd [keep]: SIGTERM, and a FAIL if it has not exited 10 s
# later (then SIGKILL): a daemon that ignores SIGTERM is a defect.  tracerd
# keeps its open jobs for the next start (pinned programs and maps, the
# journal): removed here unless "keep".
stop_tracerd() {
	if [ -n "${TRACERD_PID:-}" ]; then
		kill -TERM "$TRACERD_PID" 2>/dev/null
		if ! wait_until 10 "tracerd (pid $TRACERD_PID) to exit on SIGTERM" proc_gone "$TRACERD_PID"; then
			kill -KILL "$TRACERD_PID" 2>/dev/null
		fi
		wait "$TRACERD_PID" 2>/dev/null
		TRACERD_PID=
	fi
	[ "${1:-}" = keep ] || discard_tracerd_state
}
# the kernel state and journal a stopped tracerd kept (unpinned programs
# detach once nothing holds them)
discard_tracerd_state() {
	[ -d "$TRACERD_PINS" ] && rm -rf "$TRACERD_PINS"
	[ -n "${TMP:-}" ] && rm -rf "$TMP/tracerd-state"
	return 0
}

# ---- a reader tracerd (tracerd --reader: the datalake read back) ----

# reader_start [extra -o options...]: tracerd --reader on its own socket
# (RSOCK, $TMP/reader.sock) with the suite's LAKE options (the datalake
# and its credentials), its log appended to RLOG ($TMP/reader.log), its
# pid in READER_PID and OWNED_PIDS.  Returns at once: a reader may be
# meant to refuse its options (reader_up waits for one that answers).
READER_PID=
reader_start() {
	RSOCK=$TMP/reader.sock
	RLOG=$TMP/reader.log
	"$BUILD/tracerd" --reader -o socket="$RSOCK" -o rules="$TOP/contrib/rules/tools.rules" \
		-o state_dir="$TMP/reader-state" -o spool_dir="$TMP/reader.spool" "${LAKE[@]}" \
		"$@" >>"$RLOG" 2>&1 &
	READER_PID=$!
	OWNED_PIDS+=("$READER_PID")
}
reader_answers_or_died() { proc_gone "$READER_PID" || "$BUILD/tracer" -o socket="$RSOCK" status --json >/dev/null 2>&1; }

# reader_up [extra -o options...]: reader_start, then 0 once it answers a
# status request; a FAIL with its log and 1 when it died or did not
# answer within 30 s
reader_up() {
	reader_start "$@"
	poll_until 30 reader_answers_or_died
	if ! proc_gone "$READER_PID" && "$BUILD/tracer" -o socket="$RSOCK" status --json >/dev/null 2>&1; then
		return 0
	fi
	fail "the reader did not start (no status reply within 30 s); its log:"
	sed 's/^/    /' "$RLOG"
	reader_stop
	return 1
}

# reader_stop: SIGTERM, and a FAIL if it has not exited 10 s later (then
# SIGKILL); by pid, nothing when none runs
reader_stop() {
	[ -n "${READER_PID:-}" ] || return 0
	kill -TERM "$READER_PID" 2>/dev/null
	if ! wait_until 10 "the reader (pid $READER_PID) to exit on SIGTERM" proc_gone "$READER_PID"; then
		kill -KILL "$READER_PID" 2>/dev/null
	fi
	wait "$READER_PID" 2>/dev/null
	READER_PID=
}

# no_sanitizer_reports DESCRIPTION LOG...: a check that no sanitizer
# (ASan, LeakSanitizer, UBSan, ThreadSanitizer) reported in these logs
# (a sanitizer build's tracerd goes on after a report: only its log says)
no_sanitizer_reports() {
	local desc=$1 log hit=
	shift
	for log in "$@"; do
		[ -f "$log" ] || continue
		if grep -qE "AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error" "$log"; then
			hit=1
			echo "    $log:"
			grep -m1 -A30 -E "AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error" "$log" |
				sed 's/^/    /'
		fi
	done
	if [ -n "$hit" ]; then fail "$desc"; else pass "$desc"; fi
}

# tracer CLI bound to the running test daemon
tr_cli() { "$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" "$@"; }

# trun JOBFILE -- CMD...: run CMD as a recorded job; the job uid lands in JOBFILE
trun() {
	jf=$1; shift
	tr_cli run --job-file "$jf" "$@"
}

# summary_of_job JOBFILE: the summary of the job named in JOBFILE is in
# tracerd's file (for wait_until)
summary_of_job() {
	local uid
	uid=$(cat "$1" 2>/dev/null) && [ -n "$uid" ] && [ -f "$TRACERD_FILE" ] || return 1
	python3 - "$TRACERD_FILE" "$uid" <<'PY'
import json, sys
sys.exit(0 if any(json.loads(l).get("job") == sys.argv[2]
                  for l in open(sys.argv[1]) if l.strip()) else 1)
PY
}

# ---- delivery ----

# dstat PYTHON-EXPR: evaluated on `tracer status --json`'s "delivery"
# (d); sink(name) is that sink's counters
dstat() {
	tr_cli status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["delivery"]
def sink(n): return next(s for s in d["sinks"] if s["sink"] == n)
print(eval(sys.argv[1]))' "$1"
}
# dtrue PYTHON-EXPR: the expression holds (for wait_until)
dtrue() { [ "$(dstat "$1")" = True ]; }

# ---- the summary contract (docs/summary.schema.json) ----

# schema_python: a python3 that has the jsonschema module (the one on
# PATH, else the system's); none is an error that names the package.
schema_python() {
	local py
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import jsonschema' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	echo "no python3 with the jsonschema module (apt-get install python3-jsonschema)" >&2
	return 1
}

# validate_summaries DESCRIPTION [--min N] FILE...: a check that every
# summary of the files is valid against the schema (at least N in all)
# summary_files DIR: the file sinks' files under DIR (rotated ones too)
summary_files() { find "$1" -type f \( -name '*.ndjson' -o -name '*.ndjson.[0-9]*' \) | sort; }

validate_summaries() {
	local desc=$1 py
	shift
	if ! py=$(schema_python 2>&1); then
		fail "$desc: $py"
		return 1
	fi
	check "$desc" "$py" "$(dirname "${BASH_SOURCE[0]}")/validate_summary.py" "$@"
}

# make_test_users GROUP USER...: system users (no home, no shell) and a
# group for the suites that act as several users; those made here are
# noted in MADE_USERS/MADE_GROUP for remove_test_users.  Each user gets a
# private directory $TMP/USER.  Exits the suite when one cannot be made.
make_test_users() {
	local group=$1 u
	shift
	need_commands setpriv useradd userdel groupadd groupdel
	for u in "$@"; do
		if ! id "$u" >/dev/null 2>&1; then
			useradd --system --no-create-home --shell /usr/sbin/nologin "$u" ||
				{ echo "FAIL: cannot create the test user $u"; exit 1; }
			MADE_USERS+=("$u")
		fi
	done
	if ! getent group "$group" >/dev/null; then
		groupadd --system "$group" || { echo "FAIL: cannot create the test group $group"; exit 1; }
		MADE_GROUP=$group
	fi
	for u in "$@"; do install -d -m 0700 -o "$u" -g "$u" "$TMP/$u"; done
}

# user_copy FILE...: copies of FILEs (the tracer CLI, helper binaries,
# python scripts) that an unprivileged test user can run, printed one a
# line in order.  The tree may sit in a directory only root can read (a
# clone under /root, mode 0700), so whatever a suite runs as another user
# is run from $TMP/user-files: $TMP is made 0755, the copies 0755 too.
user_copy() {
	local dir=$TMP/user-files f
	chmod 0755 "$TMP" || { echo "user_copy: cannot make $TMP readable (chmod 0755)" >&2; return 1; }
	install -d -m 0755 "$dir" || { echo "user_copy: cannot make $dir" >&2; return 1; }
	for f in "$@"; do
		install -m 0755 "$f" "$dir/${f##*/}" || { echo "user_copy: cannot copy $f to $dir" >&2; return 1; }
		echo "$dir/${f##*/}"
	done
}

# remove_test_users: what make_test_users made
remove_test_users() {
	local u
	for u in "${MADE_USERS[@]}"; do userdel "$u" 2>/dev/null; done
	[ -n "${MADE_GROUP:-}" ] && groupdel "$MADE_GROUP" 2>/dev/null
	MADE_USERS=() MADE_GROUP=
}
