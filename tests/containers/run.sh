#!/bin/bash
# run.sh BUILD - containers and multi-call binaries on the real kernel:
# busybox applets named as the tool the user ran, and (with podman) the
# container entity of a job.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-ct.XXXXXX)
. "$TOP/tests/lib.sh"
. "$TOP/tests/containers/lib.sh"
CHECK="$TOP/tests/containers/check.py"

PODMAN=
STARTED=() # containers this suite started: removed by name, even on failure
cleanup() {
	for c in "${STARTED[@]}"; do
		$PODMAN rm -f -t 0 "$c" >/dev/null 2>&1
	done
	stop_tracerd
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
BUSYBOX=$(readlink -f /bin/busybox)
[ -x "$BUSYBOX" ] && "$BUSYBOX" --list | grep -qx gzip ||
	{ echo "FAIL: $BUSYBOX with a gzip applet is missing (Debian package busybox-static)"; exit 1; }
# container names and images from the test's private podman storage
start_tracerd ct -o container_storage="$TMP/storage" || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

echo "== busybox applets on the host"
mkdir "$TMP/bin"
ln -s "$BUSYBOX" "$TMP/bin/gzip"
head -c 100000 /dev/urandom >"$TMP/data"
trun "$TMP/j.bb" -- /bin/sh -c "'$TMP/bin/gzip' -c '$TMP/data' >'$TMP/data.gz' && '$BUSYBOX' seq 3 >/dev/null"
chk "busybox exec'd through a symlink named gzip is tool gzip" "@$TMP/j.bb" tool gzip "$BUSYBOX"
chk "busybox seq is tool seq" "@$TMP/j.bb" tool seq "$BUSYBOX"
chk "no tool is named busybox" "@$TMP/j.bb" no-tool busybox

echo "== podman: a local image, no registry"
# On this machine's hybrid cgroups (v1 controllers, v2 without) podman
# needs the runc runtime with the cgroupfs manager, and a containers.conf
# with default_ulimits = [] (the default ulimits cannot be set in this
# sandbox).  Storage, run root and configuration are private to the test.
for c in podman runc; do
	command -v "$c" >/dev/null || { fail "$c is not installed (Debian packages podman, runc)"; finish; exit 1; }
done
printf '[containers]\ndefault_ulimits = []\n' >"$TMP/containers.conf"
export CONTAINERS_CONF=$TMP/containers.conf
PODMAN="podman --root $TMP/storage --runroot $TMP/runroot --storage-driver vfs --runtime runc --cgroup-manager cgroupfs"
IMG=localhost/tracer-ct-test:$$
# the image: busybox with applet links, tracer-wrap and the libraries it links
busybox_rootfs_tar "$BUSYBOX" "$TMP/image.tar" || { fail "the busybox root filesystem"; finish; exit 1; }
if ! out=$($PODMAN import "$TMP/image.tar" "$IMG" 2>&1); then
	fail "podman import of a directory tarball: $out"
	finish; exit 1
fi
pass "image built locally with podman import"

# an untagged container running beside the tagged ones: its md5sum loop
# must appear in no job
STARTED+=(tracer-ct-untagged-$$)
if ! out=$($PODMAN run -d --network none --name "tracer-ct-untagged-$$" "$IMG" /bin/sh -c 'while :; do /bin/md5sum /bin/busybox >/dev/null; /bin/sleep 0.2; done' 2>&1); then
	fail "podman run of the untagged container: $out"
	finish; exit 1
fi
UNTAGGED_ID=$out

echo "== tracer-wrap as the container's entrypoint, tracerd on the host"
STARTED+=(tracer-ct-wrap-$$)
$PODMAN run --network none --name "tracer-ct-wrap-$$" --cidfile "$TMP/wrap.cid" \
	-v "$TMP:/run/tracer:ro" \
	-e AWS_BATCH_JOB_ID=ct-batch-$$ -e AWS_BATCH_JQ_NAME=ct-queue -e AWS_BATCH_JOB_ATTEMPT=2 \
	-e AWS_EC2_METADATA_DISABLED=true \
	"$IMG" /bin/tracer-wrap -v --socket /run/tracer/ct.sock -- \
	/bin/sh -c '/bin/gzip -c /bin/busybox >/dev/null && exit 5' >"$TMP/wrap.out" 2>&1
rc=$?
check "exit code 5 of the command passed through podman" test "$rc" = 5
JOB=$(sed -n 's/.*registered with tracerd as job \([^ ]*\).*/\1/p' "$TMP/wrap.out" | head -1)
if [ -z "$JOB" ]; then
	fail "tracer-wrap in the container registered with tracerd; its output:"
	sed 's/^/    /' "$TMP/wrap.out"
else
	CID=$(cat "$TMP/wrap.cid")
	chk "identity from AWS_BATCH_* given with -e" "$JOB" identity job_id "ct-batch-$$"
	chk "queue from AWS_BATCH_JQ_NAME" "$JOB" identity queue ct-queue
	chk "container id and runtime in the summary" "$JOB" container podman "$CID"
	chk "the registrant in the container says the container's pid namespace" "$JOB" registrant-pidns
	chk "container name and image from podman's storage records" "$JOB" \
		container-named "tracer-ct-wrap-$$" "$IMG"
	chk "the container cgroup's counters beside the processes' totals" "$JOB" container-counters
	chk "busybox gzip exec'd by path is tool gzip" "$JOB" tool gzip /bin/busybox
	chk "the job's exit code is 5" "$JOB" exit 5
	chk "the untagged container's md5sum is not in the job" "$JOB" no-tool md5sum
	show_names_container() {
		local out
		out=$(tr_cli show --wide "$JOB") || return 1
		grep -q "^Container podman ${CID:0:12} name tracer-ct-wrap-$$ image $IMG" <<<"$out" || { echo "$out"; return 1; }
	}
	check "tracer show names the container in the header (runtime, short id, name, image)" show_names_container
fi

echo "== tracer-wrap standalone in a container (no tracerd): the container object too"
STARTED+=(tracer-ct-sa-$$)
mkdir "$TMP/sa"
$PODMAN run --rm --network none --name "tracer-ct-sa-$$" --cidfile "$TMP/sa.cid" -v "$TMP/sa:/out" \
	-e AWS_BATCH_JOB_ID=ct-sa-$$ -e AWS_EC2_METADATA_DISABLED=true \
	"$IMG" /bin/tracer-wrap --standalone -o sinks=file -o file=/out/sa.ndjson -o sample_interval_ms=100 -- \
	/bin/sh -c '/bin/sleep 1; exit 0' >"$TMP/sa.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ -s "$TMP/sa/sa.ndjson" ]; then
	pass "the standalone wrapper wrote its summary"
	ck() { check "$1" python3 "$CHECK" "$TMP/sa/sa.ndjson" "*" "${@:2}"; }
	ck "standalone: the container's runtime and id" container podman "$(cat "$TMP/sa.cid")"
	ck "standalone: the container cgroup's counters" container-counters
	ck "standalone: busybox sleep is tool sleep" tool sleep /bin/busybox
else
	fail "tracer-wrap --standalone in podman: rc $rc, output:"
	sed 's/^/    /' "$TMP/sa.out"
fi

echo "== tracer run -- podman run: a container started by a tagged process"
# The container waits for the test's go (a file in a mounted directory,
# at most 60 s) so that a podman exec from outside the job can enter it
# once tracerd has tagged the container's cgroup.
STARTED+=(tracer-ct-run-$$)
mkdir "$TMP/flag"
trun "$TMP/j.podman" -- $PODMAN run --network none --name "tracer-ct-run-$$" --cidfile "$TMP/run.cid" \
	-v "$TMP/flag:/flag" "$IMG" /bin/sh -c '/bin/gzip -c /bin/busybox >/dev/null; /bin/seq 2 >/dev/null
	i=0; while [ ! -e /flag/go ] && [ $i -lt 600 ]; do /bin/sleep 0.1; i=$((i + 1)); done' &
TRUN_PID=$!
container_joined() {
	[ -s "$TMP/run.cid" ] && grep -q "container podman $(head -c 12 "$TMP/run.cid") .* joins the job" "$TRACERD_LOG"
}
if wait_until 60 "tracerd to tag the container's cgroup for the job" container_joined; then
	pass "the container started by a tagged podman run joins the job (its v2 cgroup tagged)"
	# from outside the job: not a descendant of tracer run
	$PODMAN exec "tracer-ct-run-$$" /bin/cat /bin/busybox >/dev/null 2>"$TMP/exec.err" ||
		fail "podman exec into the tagged container: $(cat "$TMP/exec.err")"
fi
touch "$TMP/flag/go"
wait "$TRUN_PID"
if [ -s "$TMP/run.cid" ]; then
	chk "the container's gzip is in the job" "@$TMP/j.podman" tool gzip /bin/busybox
	chk "the container is named: podman and its id" "@$TMP/j.podman" container podman "$(cat "$TMP/run.cid")"
	chk "the container started by tracer run has its name and image" "@$TMP/j.podman" \
		container-named "tracer-ct-run-$$" "$IMG"
	chk "a podman exec into the container from outside the job is in the job" "@$TMP/j.podman" tool cat /bin/busybox
	chk "the untagged container's md5sum is not in the job" "@$TMP/j.podman" no-tool md5sum
else
	fail "tracer run -- podman run did not start the container"
fi
# A container shorter than the sampling interval (60 s here, so that no
# sample can see it): found by the pid namespace of its execs, and its
# cgroup read when its last process exits, before podman removes it.
echo "== a 0.2 s container, no sample while it runs"
SHORT_FILE=$TRACERD_FILE
stop_tracerd
start_tracerd ct-short -o container_storage="$TMP/storage" -o sample_interval_ms=60000 || { finish; exit 1; }
STARTED+=(tracer-ct-short-$$)
trun "$TMP/j.short" -- $PODMAN run --rm --name "tracer-ct-short-$$" --cidfile "$TMP/short.cid" \
	"$IMG" /bin/sh -c '/bin/gzip -c /bin/busybox >/dev/null; /bin/sleep 0.2'
if [ -s "$TMP/short.cid" ]; then
	chk "the short container is the job's container" "@$TMP/j.short" container podman "$(cat "$TMP/short.cid")"
	chk "its name and image, though podman removed it (--rm)" "@$TMP/j.short" \
		container-named "tracer-ct-short-$$" "$IMG"
	chk "its cgroup's counters, read as its last process exited" "@$TMP/j.short" container-counters
	chk "its processes say their pid namespace (the container's)" "@$TMP/j.short" pidns gzip yes
	chk "the podman client on the host says none" "@$TMP/j.short" pidns podman no
	# podman's network set-up (CNI on Debian 12) runs iptables, a link to
	# the xtables multi-call binary; runc runs its own copy from a memfd
	chk "iptables of podman's network set-up is tool iptables" "@$TMP/j.short" \
		tool iptables "$(readlink -f /usr/sbin/iptables)"
	chk "no tool is named xtables-nft-multi" "@$TMP/j.short" no-tool xtables-nft-multi
	chk "runc is tool runc" "@$TMP/j.short" tool runc -
	chk "runc exec'd from its memfd copy (/proc/self/fd/N) is not a tool named 6" "@$TMP/j.short" no-tool 6
else
	fail "tracer run -- podman run --rm did not start the short container"
fi
validate_summaries "the short container's summary is valid" --min 1 "$TRACERD_FILE"
TRACERD_FILE=$SHORT_FILE
no_untagged_anywhere() {
	! grep -q "$UNTAGGED_ID" "$TRACERD_FILE" || { echo "untagged container $UNTAGGED_ID in a summary"; return 1; }
}
check "the untagged container is in no summary" no_untagged_anywhere
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 3 "$TRACERD_FILE"

finish
