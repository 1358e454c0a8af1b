#!/bin/bash
# apptainer.sh BUILD - Apptainer/Singularity containers on the real
# kernel.  Debian 12 packages no Apptainer: the runtime is mimicked by
# tests/helpers/apptainer_mimic.c, installed as $TMP/libexec/NAME/bin/
# starter (it unshares a mount namespace, with --pid a pid namespace too,
# and runs the command), and tests/helpers/apptainer_cli, installed as
# $TMP/bin/apptainer (and singularity), which execs the starter in its own
# pid as the real CLI does.  The images are empty files: the mimic keeps
# the host's file system.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-apptainer.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/containers/check.py"

UNTAGGED_PID=
cleanup() {
	if [ -n "$UNTAGGED_PID" ]; then
		touch "$TMP/stop"
		poll_until 10 proc_gone "$UNTAGGED_PID" || kill -KILL "$UNTAGGED_PID" 2>/dev/null
	fi
	stop_tracerd
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tests/helpers/apptainer_mimic; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in gzip md5sum; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done

# the runtimes' installations: PREFIX/bin/CLI, PREFIX/libexec/NAME/bin/starter
mkdir -p "$TMP/bin" "$TMP/libexec/apptainer/bin" "$TMP/libexec/singularity/bin"
cp "$TOP/tests/helpers/apptainer_cli" "$TMP/bin/apptainer"
ln -s apptainer "$TMP/bin/singularity"
# copies, not links: tracerd sees the path of the file a process execs
cp "$BUILD/tests/helpers/apptainer_mimic" "$TMP/libexec/apptainer/bin/starter"
cp "$BUILD/tests/helpers/apptainer_mimic" "$TMP/libexec/singularity/bin/starter"
APPTAINER=$TMP/bin/apptainer
cd "$TMP" || exit 1
touch image.sif first.sif other.sif
head -c 100000 /dev/urandom >data

start_tracerd app || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

# an untagged container running beside the tagged jobs: its md5sum loop
# must appear in no job
"$APPTAINER" exec other.sif sh -c ': >running; while [ ! -e stop ]; do md5sum data >/dev/null; sleep 0.05; done' \
	>"$TMP/untagged.out" 2>&1 &
UNTAGGED_PID=$!
wait_until 10 "the untagged container to run" test -e running ||
	{ sed 's/^/    /' "$TMP/untagged.out"; finish; exit 1; }

echo "== apptainer exec image.sif"
trun j.exec -- "$APPTAINER" exec image.sif sh -c 'gzip -c data >data.gz'
chk "the job's container is apptainer's, image image.sif" "@j.exec" container apptainer "" image.sif
chk "gzip ran in the job" "@j.exec" tool gzip -
chk "the untagged container's md5sum is not in the job" "@j.exec" no-tool md5sum
show_names_container() {
	local out short
	short=$(python3 -c 'import json,sys
uid=open(sys.argv[2]).read().strip()
for l in open(sys.argv[1]):
    s=json.loads(l)
    if s.get("job")==uid: print(s["container"]["short_id"])' "$TRACERD_FILE" j.exec) || return 1
	out=$(tr_cli show --wide "$(cat j.exec)") || return 1
	grep -q "^Container apptainer $short image image.sif" <<<"$out" || { echo "$out"; return 1; }
}
check "tracer show names the container (runtime, short id, image)" show_names_container
check "tracerd logs the container's start" grep -q "apptainer container [0-9a-f]\{12\} (image image.sif) started by pid" "$TRACERD_LOG"

echo "== two containers and a tool on the host, in one job"
trun j.two -- sh -c "'$APPTAINER' exec first.sif true && '$APPTAINER' exec -B /tmp:/tmp image.sif sh -c 'gzip -c data >data.gz' && md5sum data >/dev/null"
chk "both containers listed, in order, with their images" "@j.two" containers 2 apptainer first.sif image.sif
chk "gzip is in the second container (a descendant of its starter)" "@j.two" in-container gzip image.sif
chk "md5sum run by the job's shell on the host is in no container" "@j.two" no-container md5sum

echo "== singularity exec image.sif"
trun j.sing -- "$TMP/bin/singularity" exec image.sif sh -c 'gzip -c data >data.gz'
chk "a singularity starter's container is singularity's" "@j.sing" container singularity "" image.sif
chk "gzip ran in the job" "@j.sing" tool gzip -

echo "== apptainer exec --pid: the command is pid 1 of a new pid namespace"
trun j.pid -- "$APPTAINER" exec --pid image.sif sh -c 'gzip -c data >data.gz; echo $$ >pid1; exit 7'
check "the mimic ran the command as pid 1 of its namespace" grep -qx 1 pid1
chk "the container is apptainer's, image image.sif" "@j.pid" container apptainer "" image.sif
chk "gzip says the container's pid namespace" "@j.pid" pidns gzip yes
chk "the command's exit code 7 passed through the starter" "@j.pid" exit 7

touch "$TMP/stop"
wait_until 10 "the untagged container to stop" proc_gone "$UNTAGGED_PID"
wait "$UNTAGGED_PID" 2>/dev/null
UNTAGGED_PID=
untagged_nowhere() {
	! grep -q '"other.sif"\|other\.sif' "$TRACERD_FILE" || { echo "other.sif in a summary"; return 1; }
	! grep -q "other.sif" "$TRACERD_LOG" || { echo "other.sif in tracerd's log"; return 1; }
}
check "the untagged container is in no summary and not in tracerd's log" untagged_nowhere
echo "== tracerd killed (SIGKILL) and started again while the container runs: the job keeps it"
# the journal of open jobs keeps the job's containers (an Apptainer
# container is seen only at its starter's exec, which is over by then)
journal_has_it() { grep -q '"image":"restart.sif"' "$TMP"/tracerd-state/journal-*.json 2>/dev/null; }
touch restart.sif
trun j.rs -- "$APPTAINER" exec restart.sif sh -c ': >inside; while [ ! -e go ]; do sleep 0.05; done
	gzip -c data >/dev/null' &
RS_PID=$!
wait_until 10 "the container to run" test -e inside
wait_until 10 "the journal to hold the job's container" journal_has_it
kill -KILL "$TRACERD_PID"; wait "$TRACERD_PID" 2>/dev/null; TRACERD_PID=
start_tracerd app || { touch go; finish; exit 1; }
touch go
wait "$RS_PID"
check "the job's command ran to its end" test $? = 0
if wait_until 30 "the summary of the job resumed after SIGKILL" summary_of_job j.rs; then
	chk "its container after the restart: apptainer, image restart.sif" "@j.rs" container apptainer "" restart.sif
fi

validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 4 "$TRACERD_FILE"

finish
