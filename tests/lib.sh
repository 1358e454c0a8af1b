# lib.sh - shared shell functions of the integration suites: counting
# checks, starting and stopping tracerd by pid, reading summaries.
# Sourced; expects $BUILD (build dir) and $TMP (the suite's temp dir).

PASSED=0
FAILED=0

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

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL: these tests need root (BPF, cgroups)"; exit 1
	fi
}

# start_tracerd NAME [extra -o options...]: config in $TMP, pid in TRACERD_PID
start_tracerd() {
	name=$1; shift
	TRACERD_SOCK=$TMP/$name.sock
	TRACERD_FILE=$TMP/$name.ndjson
	TRACERD_LOG=$TMP/$name.log
	"$BUILD/tracerd" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" -o sinks=file \
		-o pin_dir=/sys/fs/bpf/tracer-test-$$ -o rules="$TOP/contrib/rules/tools.rules" \
		"$@" >"$TRACERD_LOG" 2>&1 &
	TRACERD_PID=$!
	for _ in $(seq 1 100); do
		[ -S "$TRACERD_SOCK" ] && return 0
		kill -0 "$TRACERD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: tracerd did not start; its log:"; sed 's/^/    /' "$TRACERD_LOG"
	return 1
}

stop_tracerd() {
	[ -n "${TRACERD_PID:-}" ] || return 0
	kill -TERM "$TRACERD_PID" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$TRACERD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$TRACERD_PID" 2>/dev/null
	wait "$TRACERD_PID" 2>/dev/null
	TRACERD_PID=
}

# tracer CLI bound to the running test daemon
tr_cli() { "$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" "$@"; }

# trun JOBFILE -- CMD...: run CMD as a recorded job; the job uid lands in JOBFILE
trun() {
	jf=$1; shift
	tr_cli run --job-file "$jf" "$@"
}
