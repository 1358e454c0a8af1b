#!/bin/bash
# wrapper_startup.sh BUILD - what tracer-wrap adds before the job's own
# command starts: the median time from fork to the command's main(),
# through the wrapper and without it, no metadata endpoint, no tracerd
# (standalone mode, the longer path).  Prints one row of bench/run.sh's
# table; WRAP_RUNS sets the number of runs (default 300).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
N=${WRAP_RUNS:-300}
TMP=$(mktemp -d /tmp/tracer-wrapbench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if ! cc -O2 -o "$TMP/startlat" "$TOP/bench/wrapper_startlat.c"; then
	echo "wrapper_startup: cannot build bench/wrapper_startlat.c" >&2
	exit 1
fi
[ -x "$BUILD/tracer-wrap" ] || { echo "wrapper_startup: $BUILD/tracer-wrap missing" >&2; exit 1; }
L=$TMP/startlat
clean_env=(env -u ECS_CONTAINER_METADATA_URI_V4 -u AWS_EC2_METADATA_SERVICE_ENDPOINT
	-u TRACER_OPTIONS -u TRACER_CONFIG)
# warm the page cache so that neither side pays for a cold read
"${clean_env[@]}" "$L" 20 "$BUILD/tracer-wrap" --socket "$TMP/none.sock" \
	-o file="$TMP/jobs.ndjson" -- "$L" stamp >/dev/null || exit 1
set -- $("${clean_env[@]}" "$L" "$N" "$L" stamp)
direct=$1
set -- $("${clean_env[@]}" "$L" "$N" "$BUILD/tracer-wrap" --socket "$TMP/none.sock" \
	-o file="$TMP/jobs.ndjson" -- "$L" stamp)
wrapped=$1
added=$(echo "$wrapped - $direct" | bc -l)
printf "| %-46s | %12s | %12s | %8s | %-10s |\n" \
	"tracer-wrap start-up, fork to command (ms)" "$(printf %.3f "$direct")" \
	"$(printf %.3f "$wrapped")" "$(printf %+.2f "$added")" "< +5 ms"
