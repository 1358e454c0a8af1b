#!/bin/bash
# docker.sh BUILD - docker containers (Debian's docker.io) on the real
# kernel: tracer-wrap as a docker container's entrypoint with tracerd on
# the host, as on AWS Batch, where ECS runs jobs with docker.  The test
# runs its own dockerd: private data root, exec root, pidfile, socket and
# containerd namespaces; no bridge and no iptables rules (the test's
# containers have no network); vfs storage.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-ctdk.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/containers/check.py"

DOCKERD_PID=
STARTED=() # containers this suite started: removed by name, even on failure
dk() { docker -H "unix://$TMP/docker.sock" "$@"; }
cleanup() {
	for c in "${STARTED[@]}"; do dk rm -f "$c" >/dev/null 2>&1; done
	stop_tracerd
	if [ -n "$DOCKERD_PID" ]; then
		kill -TERM "$DOCKERD_PID" 2>/dev/null
		poll_until 30 proc_gone "$DOCKERD_PID" ||
			{ echo "FAIL: dockerd $DOCKERD_PID ignored SIGTERM"; kill -KILL "$DOCKERD_PID"; }
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in dockerd docker containerd runc; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (Debian package docker.io)"; exit 1; }
done
BUSYBOX=$(readlink -f /bin/busybox)
[ -x "$BUSYBOX" ] || { echo "FAIL: busybox is missing (Debian package busybox-static)"; exit 1; }

echo "== a private dockerd"
dockerd --data-root "$TMP/data" --exec-root "$TMP/exec" --pidfile "$TMP/dockerd.pid" \
	-H "unix://$TMP/docker.sock" --iptables=false --ip6tables=false --bridge=none \
	--storage-driver=vfs --containerd-namespace "tracer-ct-$$" \
	--containerd-plugins-namespace "tracer-ctp-$$" >"$TMP/dockerd.log" 2>&1 &
DOCKERD_PID=$!
dockerd_up() { proc_gone "$DOCKERD_PID" || dk version >/dev/null 2>&1; }
poll_until 60 dockerd_up
if proc_gone "$DOCKERD_PID" || ! dk version >/dev/null 2>&1; then
	fail "dockerd did not start; its log:"
	tail -20 "$TMP/dockerd.log" | sed 's/^/    /'
	DOCKERD_PID=
	finish; exit 1
fi
pass "dockerd runs (vfs, no bridge, no iptables)"

IMG=tracer-ct-docker:$$
R=$TMP/rootfs
mkdir -p "$R/bin" "$R/run/tracer" "$R/tmp" "$R/proc" "$R/sys" "$R/dev" "$R/etc"
cp "$BUSYBOX" "$R/bin/busybox"
for a in sh gzip seq md5sum sleep cat; do ln -s busybox "$R/bin/$a"; done
cp "$BUILD/tracer-wrap" "$R/bin/tracer-wrap"
for lib in $(ldd "$BUILD/tracer-wrap" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
	mkdir -p "$R$(dirname "$lib")" && cp -L "$lib" "$R$lib"
done
tar -C "$R" -cf "$TMP/image.tar" .
if ! out=$(dk import "$TMP/image.tar" "$IMG" 2>&1); then
	fail "docker import of a directory tarball: $out"
	finish; exit 1
fi
pass "image built locally with docker import"

start_tracerd dk || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

# an untagged container beside the job: its md5sum loop is in no job
STARTED+=(tracer-dk-untagged-$$)
if ! UNTAGGED_ID=$(dk run -d --network none --name "tracer-dk-untagged-$$" "$IMG" \
	/bin/sh -c 'while :; do /bin/md5sum /bin/busybox >/dev/null; /bin/sleep 0.2; done' 2>&1); then
	fail "docker run of the untagged container: $UNTAGGED_ID"
	finish; exit 1
fi

echo "== tracer-wrap as a docker container's entrypoint, tracerd on the host"
STARTED+=(tracer-dk-wrap-$$)
mkdir "$TMP/flag"
dk run --name "tracer-dk-wrap-$$" --cidfile "$TMP/wrap.cid" --network none \
	-v "$TMP:/run/tracer:ro" -v "$TMP/flag:/flag" \
	-e AWS_BATCH_JOB_ID=dk-batch-$$ -e AWS_BATCH_JQ_NAME=dk-queue -e AWS_BATCH_JOB_ATTEMPT=1 \
	-e AWS_EC2_METADATA_DISABLED=true \
	"$IMG" /bin/tracer-wrap -v --socket /run/tracer/dk.sock -- \
	/bin/sh -c '/bin/gzip -c /bin/busybox >/dev/null
	i=0; while [ ! -e /flag/go ] && [ $i -lt 600 ]; do /bin/sleep 0.1; i=$((i + 1)); done
	exit 3' >"$TMP/wrap.out" 2>&1 &
RUN_PID=$!
container_joined() {
	[ -s "$TMP/wrap.cid" ] && grep -q "container docker $(head -c 12 "$TMP/wrap.cid") .* joins the job" "$TRACERD_LOG"
}
if wait_until 60 "tracerd to tag the docker container's cgroup for the job" container_joined; then
	pass "the docker container joins the job (its v2 cgroup tagged)"
	# from outside the job: started by dockerd and containerd, not the job
	dk exec "tracer-dk-wrap-$$" /bin/cat /bin/busybox >/dev/null 2>"$TMP/exec.err" ||
		fail "docker exec into the container: $(cat "$TMP/exec.err")"
fi
touch "$TMP/flag/go"
wait "$RUN_PID"
rc=$?
check "exit code 3 of the command passed through docker" test "$rc" = 3
JOB=$(sed -n 's/.*registered with tracerd as job \([^ ]*\).*/\1/p' "$TMP/wrap.out" | head -1)
if [ -z "$JOB" ]; then
	fail "tracer-wrap in the docker container registered with tracerd; its output:"
	sed 's/^/    /' "$TMP/wrap.out"
else
	CID=$(cat "$TMP/wrap.cid")
	chk "identity from AWS_BATCH_* given with -e" "$JOB" identity job_id "dk-batch-$$"
	chk "container id and runtime docker in the summary" "$JOB" container docker "$CID"
	chk "docker keeps name and image beside the environment: neither is read" "$JOB" \
		container-unnamed
	chk "the container cgroup's counters" "$JOB" container-counters
	chk "busybox gzip exec'd by path is tool gzip" "$JOB" tool gzip /bin/busybox
	chk "a docker exec into the container from outside the job is in the job" "$JOB" tool cat /bin/busybox
	chk "the job's exit code is 3" "$JOB" exit 3
	chk "the untagged container's md5sum is not in the job" "$JOB" no-tool md5sum
fi
no_untagged_anywhere() {
	! grep -q "$UNTAGGED_ID" "$TRACERD_FILE" || { echo "untagged container $UNTAGGED_ID in a summary"; return 1; }
}
check "the untagged container is in no summary" no_untagged_anywhere
validate_summaries "the summaries are valid" --min 1 "$TRACERD_FILE"
finish
