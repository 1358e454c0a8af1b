#!/bin/bash
# ownership.sh BUILD - which container cgroups a job may take in.  When a
# job's process is seen in a container, tracerd tags the container's v2
# cgroup with the job, so that processes entering it from outside are
# the job's.  It must not do that for a container of another job, nor
# for a user's job when the container holds another user's processes.
# The containers here are v2 cgroups named as docker names its own
# (docker-<id>.scope), made by the test: no runtime is needed.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-ctown.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/containers/check.py"

OWNED_PIDS=()
BASE=
cleanup() {
	for p in "${OWNED_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	touch "$TMP/go" 2>/dev/null
	for p in "${OWNED_PIDS[@]}"; do
		poll_until 10 proc_gone "$p" || kill -KILL "$p" 2>/dev/null
	done
	stop_tracerd
	if [ -n "$BASE" ] && [ -d "$BASE" ]; then
		for d in "$BASE"/*/; do [ -d "$d" ] && rmdir "$d"; done
		rmdir "$BASE" || echo "FAIL: cannot remove the test cgroup $BASE"
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in setpriv findmnt sha256sum python3; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done
V2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$V2" ] || { echo "FAIL: no cgroup2 mount (the kernel filters tagged v2 cgroups)"; exit 1; }
NOBODY=$(id -u nobody) || { echo "FAIL: no user nobody"; exit 1; }
chmod 0755 "$TMP"
install -d -m 0700 -o nobody "$TMP/nobody"
BASE=$V2/tracer-ct-own-$$
mkdir "$BASE" || { echo "FAIL: cannot make the cgroup $BASE"; exit 1; }
ctid() { printf '%s' "$1-$$" | sha256sum | cut -c1-64; }
ID_ROOTS=$(ctid roots) ID_MINE=$(ctid mine)
C_ROOTS=$BASE/docker-$ID_ROOTS.scope # holds a process of root
C_MINE=$BASE/docker-$ID_MINE.scope   # holds only the job's processes
mkdir "$C_ROOTS" "$C_MINE" || { echo "FAIL: cannot make the container cgroups"; exit 1; }

start_tracerd own || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }
as_nobody() { setpriv --reuid="$NOBODY" --regid="$(id -g nobody)" --clear-groups -- "$@"; }
UTRACER=$(user_copy "$BUILD/tracer") || exit 1 # one nobody can read (user_copy)

# in_job NAME AS...: a job whose shell writes its pid, waits to be moved
# into a container (flag NAME.moved), runs a sleep there long enough for
# a sample to see it, then waits for the end of the test
in_job() {
	local name=$1; shift
	"$@" "$UTRACER" -o socket="$TRACERD_SOCK" run --job-file "$TMP/nobody/$name.job" -- \
		/bin/sh -c "echo \$\$ >$TMP/nobody/$name.pid
		until [ -e $TMP/nobody/$name.moved ]; do sleep 0.05; done
		sleep 3
		until [ -e $TMP/go ]; do sleep 0.05; done" &
	OWNED_PIDS+=($!)
}
# move_in NAME CGROUP: the job's shell into the container
move_in() {
	wait_until 30 "job $1 to start" test -s "$TMP/nobody/$1.pid" || return 1
	echo "$(cat "$TMP/nobody/$1.pid")" >"$2/cgroup.procs" || { fail "cannot move job $1 into $2"; return 1; }
	touch "$TMP/nobody/$1.moved"
}
# enter CGROUP CMD...: a process from outside every job enters the container and runs CMD
enter() { local cg=$1; shift; (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$@"); }
logged() { grep -q "$1" "$TRACERD_LOG"; }

echo "== a user's job may take in a container holding only its own processes"
in_job mine as_nobody
move_in mine "$C_MINE"
if wait_until 30 "the container to join nobody's job" logged "container docker ${ID_MINE:0:12} .* joins the job"; then
	pass "a container holding only the job's processes joins the job"
	enter "$C_MINE" cksum /bin/sh >/dev/null
fi

echo "== ... and not one holding another user's processes"
(echo "$BASHPID" >"$C_ROOTS/cgroup.procs" && exec tail -f /dev/null) &
OWNED_PIDS+=($!)
ROOT_TAIL=$!
in_job theirs as_nobody
move_in theirs "$C_ROOTS"
if wait_until 30 "tracerd to refuse the container" \
	logged "container docker ${ID_ROOTS:0:12} does not join the job: process $ROOT_TAIL in it runs as uid 0, the job's user is $NOBODY"; then
	pass "a container holding a root process does not join nobody's job (logged why)"
fi
enter "$C_ROOTS" md5sum /bin/sh >/dev/null

echo "== never a container another job has"
in_job second
move_in second "$C_MINE"
MINE_JOB=$(cat "$TMP/nobody/mine.job")
if wait_until 30 "tracerd to refuse the second job the first job's container" \
	logged "container docker ${ID_MINE:0:12} does not join the job: it is job $MINE_JOB's"; then
	pass "root's second job does not take the container of nobody's job"
fi
# a process entering the container now is still the first job's
enter "$C_MINE" sum /bin/sh >/dev/null

touch "$TMP/go"
for j in mine theirs second; do
	wait_until 60 "job $j's summary" summary_of_job "$TMP/nobody/$j.job" || true
done
chk "nobody's job has the process that entered its container" "@$TMP/nobody/mine.job" tool cksum -
chk "and the one that entered after another job saw the container" "@$TMP/nobody/mine.job" tool sum -
chk "the second job does not" "@$TMP/nobody/second.job" no-tool sum
chk "the refused job has not root's process in the other container" "@$TMP/nobody/theirs.job" no-tool tail
chk "nor the process that entered that container" "@$TMP/nobody/theirs.job" no-tool md5sum
chk "the first job's container is named in its summary" "@$TMP/nobody/mine.job" container docker "$ID_MINE"
validate_summaries "the summaries are valid" --min 3 "$TRACERD_FILE"
finish
