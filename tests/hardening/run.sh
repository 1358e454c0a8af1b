#!/bin/bash
# run.sh BUILD - tracerd on a node shared by several users: the socket is
# made without a race, a read-only mount of its directory still works,
# scheduler identities are root's, one user cannot take another's job or
# process, and what leaves tracerd has no raw control characters.  The
# user-facing checks run as two unprivileged test users (created here
# when missing, removed at the end).  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-hard.XXXXXX)
chmod 0755 "$TMP" # the test users reach the socket through it
. "$TOP/tests/lib.sh"
U1=tracer-h1
U2=tracer-h2
MADE_USERS=()
OWNED_PIDS=()

cleanup() {
	for p in "${OWNED_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_tracerd
	for u in "${MADE_USERS[@]}"; do userdel "$u" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in python3 pgrep setpriv strace unshare useradd userdel; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done
for u in "$U1" "$U2"; do
	if ! id "$u" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$u" ||
			{ echo "FAIL: cannot create the test user $u"; exit 1; }
		MADE_USERS+=("$u")
	fi
done
# as USER: run a command with that user's uid, gid and groups
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"; }

echo "== the socket gets its mode at bind, never by a chmod that follows a symlink"
TRACERD_SOCK=$TMP/strace.sock
strace -f -qq -e trace=chmod,fchmodat -o "$TMP/strace.out" \
	"$BUILD/tracerd" -o socket="$TRACERD_SOCK" -o file="$TMP/strace.ndjson" -o sinks=file \
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
finish
