#!/bin/bash
# wrapper_metadata.sh BUILD - what tracer-wrap costs a job in two cases
# the wrapper suite only bounds (tests/wrapper/run.sh):
#  - metadata endpoints that accept and never answer (ECS task metadata
#    and IMDS played by tests/wrapper/metaserver.py in "hang" mode), with
#    metadata_timeout_ms 300 and 1000, against no endpoint at all: the
#    wall time of `tracer-wrap -- true`;
#  - the wrapper's own CPU in standalone mode for a 5 s job, as it
#    reports it (`-v`: "the wrapper used ... (X% of one core)").
# Prints rows of bench/run.sh's table, medians of WRAP_META_RUNS runs
# (default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
W=$BUILD/tracer-wrap
H=$BUILD/tests/helpers
N=${WRAP_META_RUNS:-5}
TMP=$(mktemp -d /tmp/tracer-wrapmeta.XXXXXX)
. "$TOP/tests/lib.sh"
SERVER_PID=

cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill -TERM "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

for f in "$W" "$H/spin"; do
	[ -x "$f" ] || { echo "wrapper_metadata: $f missing (make all)" >&2; exit 1; }
done

row() { printf "| %-46s | %12s | %12s | %8s | %-10s |\n" "$@"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# wall ms of a command
ms_of() {
	local s
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - s) / 1000000))
}

# the machine's own settings and metadata must not count
clean=(env -u ECS_CONTAINER_METADATA_URI_V4 -u AWS_EC2_METADATA_SERVICE_ENDPOINT
	-u TRACER_OPTIONS -u TRACER_CONFIG AWS_BATCH_JOB_ID=bench-job AWS_BATCH_JOB_ATTEMPT=1)
wrap=("$W" --socket "$TMP/none.sock" -o file="$TMP/jobs.ndjson")

python3 "$TOP/tests/wrapper/metaserver.py" "$TMP/port" "$TMP/meta.log" hang 600 &
SERVER_PID=$!
if ! poll_until 10 test -s "$TMP/port"; then
	echo "wrapper_metadata: the metadata server did not start" >&2
	exit 1
fi
PORT=$(cat "$TMP/port")
hung=(ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:$PORT/v4/bench"
	AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT/")

echo "tracer-wrap with hung metadata endpoints: $N runs each" >&2
none="" t300="" t1000=""
for _ in $(seq "$N"); do
	none+="$(ms_of "${clean[@]}" "${wrap[@]}" -- true) "
	t300+="$(ms_of "${clean[@]}" "${hung[@]}" "${wrap[@]}" -o metadata_timeout_ms=300 -- true) "
	t1000+="$(ms_of "${clean[@]}" "${hung[@]}" "${wrap[@]}" -o metadata_timeout_ms=1000 -- true) "
done
m_none=$(tr ' ' '\n' <<<"$none" | grep . | median)
for t in 300 1000; do
	eval "v=\$t$t"
	m=$(tr ' ' '\n' <<<"$v" | grep . | median)
	row "tracer-wrap start, metadata hung $t ms (ms)" "$m_none" "$m" "$(printf %+d $((m - m_none)))" "< 1200"
done

echo "tracer-wrap's own CPU for a 5 s standalone job: $N runs" >&2
costs=""
for _ in $(seq "$N"); do
	c=$("${clean[@]}" "$W" -v --socket "$TMP/none.sock" -o file="$TMP/cpu.ndjson" -- "$H/spin" 5000 2>&1 |
		sed -n 's/.*the wrapper used .* (\([0-9.]*\)% of one core).*/\1/p')
	[ -n "$c" ] || { echo "wrapper_metadata: no cost line from tracer-wrap -v" >&2; exit 1; }
	costs+="$c "
done
row "tracer-wrap own CPU, 5 s standalone job (%)" "" "$(tr ' ' '\n' <<<"$costs" | grep . | median)" "" "< 1%"
