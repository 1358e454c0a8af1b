#!/bin/bash
# run.sh BUILD - containers and multi-call binaries on the real kernel:
# busybox applets named as the tool the user ran, and (with podman) the
# container entity of a job.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-ct.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/containers/check.py"

cleanup() {
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
start_tracerd ct || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

echo "== busybox applets on the host"
mkdir "$TMP/bin"
ln -s "$BUSYBOX" "$TMP/bin/gzip"
head -c 100000 /dev/urandom >"$TMP/data"
trun "$TMP/j.bb" -- /bin/sh -c "'$TMP/bin/gzip' -c '$TMP/data' >'$TMP/data.gz' && '$BUSYBOX' seq 3 >/dev/null"
chk "busybox exec'd through a symlink named gzip is tool gzip" "@$TMP/j.bb" tool gzip "$BUSYBOX"
chk "busybox seq is tool seq" "@$TMP/j.bb" tool seq "$BUSYBOX"
chk "no tool is named busybox" "@$TMP/j.bb" no-tool busybox

finish
