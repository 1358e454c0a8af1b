#!/bin/bash
# peers.sh BUILD - root in a container is not root to tracerd.  Without a
# user namespace a container's uid 0 is uid 0 in SO_PEERCRED, and AWS
# Batch's set-up mounts tracerd's socket into every job.  A podman
# container running as root, with the suite's socket mounted and
# tracer-wrap as its entrypoint, runs requests of its own (a static
# client, sockreq): it must see no other job (one of root's on the host,
# one of another container's), read no summary, end neither job, register
# no job of another scheduler nor join the other container's; its own job
# still works (its summary arrives).  Needs root and podman.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-peers.XXXXXX)
. "$TOP/tests/lib.sh"

PODMAN=
HOST_PID=
STARTED=() # containers this suite started: removed by name, even on failure
cleanup() {
	for c in "${STARTED[@]}"; do
		$PODMAN rm -f -t 0 "$c" >/dev/null 2>&1
	done
	if [ -n "$HOST_PID" ]; then
		touch "$TMP/f.host/go"
		poll_until 10 proc_gone "$HOST_PID" || kill "$HOST_PID" 2>/dev/null
	fi
	stop_tracerd
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tracer-wrap tests/helpers/sockreq; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in podman runc; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (Debian packages podman, runc)"; exit 1; }
done
BUSYBOX=$(readlink -f /bin/busybox)
[ -x "$BUSYBOX" ] || { echo "FAIL: busybox is missing (Debian package busybox-static)"; exit 1; }

# podman as tests/containers/run.sh runs it on this machine's hybrid cgroups
printf '[containers]\ndefault_ulimits = []\n' >"$TMP/containers.conf"
export CONTAINERS_CONF=$TMP/containers.conf
PODMAN="podman --root $TMP/storage --runroot $TMP/runroot --storage-driver vfs --runtime runc --cgroup-manager cgroupfs"
IMG=localhost/tracer-peers-test:$$
R=$TMP/rootfs
mkdir -p "$R/bin" "$R/run/tracer" "$R/tmp" "$R/proc" "$R/sys" "$R/dev" "$R/etc" "$R/out" "$R/flag"
cp "$BUSYBOX" "$R/bin/busybox"
for a in sh sleep cat grep; do ln -s busybox "$R/bin/$a"; done
cp "$BUILD/tests/helpers/sockreq" "$R/bin/sockreq"
cp "$BUILD/tracer-wrap" "$R/bin/tracer-wrap"
for lib in $(ldd "$BUILD/tracer-wrap" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
	mkdir -p "$R$(dirname "$lib")" && cp -L "$lib" "$R$lib"
done
tar -C "$R" -cf "$TMP/image.tar" .
if ! out=$($PODMAN import "$TMP/image.tar" "$IMG" 2>&1); then
	fail "podman import of a directory tarball: $out"
	finish; exit 1
fi
pass "image built locally with podman import (busybox, tracer-wrap, sockreq)"

start_tracerd peers || exit 1
SOCK_NAME=$(basename "$TRACERD_SOCK")
go_wait='i=0; while [ ! -e /flag/go ] && [ $i -lt 1200 ]; do /bin/sleep 0.1; i=$((i + 1)); done'

echo "== a job of root on the host, and one of another container"
mkdir "$TMP/f.host" "$TMP/f.b" "$TMP/out"
trun "$TMP/j.host" -- /bin/sh -c "i=0; while [ ! -e '$TMP/f.host/go' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done" &
HOST_PID=$!
wait_until 30 "the host job to register" test -s "$TMP/j.host" || { finish; exit 1; }
HOST_JOB=$(cat "$TMP/j.host")
STARTED+=(tracer-peers-b-$$)
if ! out=$($PODMAN run -d --network none --name "tracer-peers-b-$$" -v "$TMP:/run/tracer:ro" \
	-v "$TMP/f.b:/flag" -e AWS_BATCH_JOB_ID=peer-b-$$ -e AWS_BATCH_JOB_ATTEMPT=1 \
	-e AWS_EC2_METADATA_DISABLED=true "$IMG" /bin/tracer-wrap --socket "/run/tracer/$SOCK_NAME" -- \
	/bin/sh -c "$go_wait" 2>&1); then
	fail "podman run of the other container: $out"
	finish; exit 1
fi
# open_job JOB_ID: the uid of the open job of that AWS Batch job id (root's view)
open_job() {
	tr_cli status --json | python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]["open_jobs"]:
    if j["identity"].get("job_id") == sys.argv[1]:
        print(j["job"]); sys.exit(0)
sys.exit(1)' "$1"
}
wait_until 30 "the other container's job to register" open_job "peer-b-$$" >/dev/null || { finish; exit 1; }
B_JOB=$(open_job "peer-b-$$")
pass "open: root's job $HOST_JOB on the host, job $B_JOB of the other container"

echo "== root in a container, the socket mounted: its own requests"
# Each request's answer lands in /out/NAME; the script runs as the
# command of the container's tracer-wrap, so its own job is open.
cat >"$TMP/out/hostile.sh" <<EOF
S=/run/tracer/$SOCK_NAME
q() { /bin/sockreq "\$S" "\$2" >/out/\$1 2>&1; }
q status '{"op":"status","v":1}'
q list '{"op":"summaries","v":1,"limit":0,"all_files":true}'
q show-host '{"op":"summary","v":1,"job":"$HOST_JOB"}'
q end-host '{"op":"end","v":1,"job":"$HOST_JOB","status":9}'
q end-b '{"op":"end","v":1,"job":"$B_JOB","status":9}'
q exit-b '{"op":"task_exit","v":1,"job":"$B_JOB","status":9}'
q reg-slurm '{"op":"register","v":1,"identity":{"scheduler":"slurm","job_id":"4242","step_id":"0","uid":1,"user":"daemon"}}'
q join-b '{"op":"register","v":1,"identity":{"scheduler":"aws-batch","job_id":"peer-b-$$","attempt":1}}'
: >/out/done
EOF
STARTED+=(tracer-peers-c-$$)
$PODMAN run --network none --name "tracer-peers-c-$$" -v "$TMP:/run/tracer:ro" -v "$TMP/out:/out" \
	-e AWS_BATCH_JOB_ID=peer-c-$$ -e AWS_EC2_METADATA_DISABLED=true \
	"$IMG" /bin/tracer-wrap -v --socket "/run/tracer/$SOCK_NAME" -- /bin/sh /out/hostile.sh \
	>"$TMP/c.out" 2>&1
rc=$?
check "the container's command ran to its end" test "$rc" = 0 -a -e "$TMP/out/done"
C_JOB=$(sed -n 's/.*registered with tracerd as job \([^ ]*\).*/\1/p' "$TMP/c.out" | head -1)
if [ -z "$C_JOB" ]; then
	fail "tracer-wrap in the container registered its own job; its output:"
	sed 's/^/    /' "$TMP/c.out"
fi
show() { sed 's/^/    /' "$TMP/out/$1"; }

# the status it got: its own open job, no other, and no recent list
status_own_only() {
	python3 - "$TMP/out/status" "$C_JOB" <<'PY' || { show status; return 1; }
import json, sys
st = json.loads(open(sys.argv[1]).read().splitlines()[0])
jobs = st["status"]["jobs"]
seen = [j["job"] for j in jobs.get("open_jobs", [])]
if seen != [sys.argv[2]]:
    sys.exit(f"open jobs shown: {seen}, want only its own {sys.argv[2]}")
if "recent" in jobs:
    sys.exit("the recently closed jobs are listed")
PY
}
check "tracer status from the container lists its own job only" status_own_only
replied_error() { # replied_error NAME TEXT: an error reply that says TEXT
	grep -q '"ok": *false' "$TMP/out/$1" && grep -q "$2" "$TMP/out/$1" || { show "$1"; return 1; }
}
check "the container reads no summary list" replied_error list "not served to processes in a container"
check "the container reads no summary of root's host job" replied_error show-host "not served"
check "it cannot end root's job on the host" replied_error end-host "no open job"
check "it cannot end the other container's job" replied_error end-b "no open job"
check "it cannot report a task exit of the other container's job" replied_error exit-b "no open job"
check "it cannot register a Slurm job for another user" replied_error reg-slurm "only its own job"
check "it cannot join the other container's job" replied_error join-b "belongs to another user"
still_open() { # still_open JOB: root's status lists that job uid as open
	tr_cli status --json | python3 -c '
import json, sys
sys.exit(0 if any(j["job"] == sys.argv[1] for j in json.load(sys.stdin)["jobs"]["open_jobs"])
         else f"job {sys.argv[1]} is not open")' "$1"
}
check "root's host job is still open" still_open "$HOST_JOB"
check "the other container's job is still open" still_open "$B_JOB"

echo "== its own job: the summary arrives; then the others end as they should"
if [ -n "$C_JOB" ]; then
	echo "$C_JOB" >"$TMP/j.c"
	wait_until 30 "the container's own summary" summary_of_job "$TMP/j.c" &&
		pass "the container's own job's summary arrived"
fi
touch "$TMP/f.host/go" "$TMP/f.b/go"
wait "$HOST_PID"
check "root's host job ran to its own end (exit 0)" test $? = 0
HOST_PID=
wait_until 30 "root's host job's summary" summary_of_job "$TMP/j.host"
echo "$B_JOB" >"$TMP/j.b"
wait_until 30 "the other container's summary" summary_of_job "$TMP/j.b"
ended_by() { # ended_by JOBFILE STATUS: the job's summary says exit STATUS
	python3 - "$TRACERD_FILE" "$(cat "$1")" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s.get("job") == sys.argv[2]:
        code = (s.get("exit") or {}).get("code")
        sys.exit(0 if str(code) == sys.argv[3] else f"exit {code!r}, want {sys.argv[3]}")
sys.exit("no summary")
PY
}
check "root's host job was not ended with the container's status 9" ended_by "$TMP/j.host" 0
check "the other container's job was not ended with status 9" ended_by "$TMP/j.b" 0
validate_summaries "the suite's summaries are valid" --min 3 "$TRACERD_FILE"
finish
