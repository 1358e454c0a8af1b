#!/bin/bash
# run-demo.sh BUILD - start tracerd on the local file sink, run the demo
# pipeline under `tracer run`, print `tracer show` for it, stop tracerd.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-demo-run.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'stop_tracerd; rm -rf "$TMP"' EXIT
if [ "$(id -u)" != 0 ]; then echo "make demo needs root (it loads BPF programs)"; exit 1; fi

start_tracerd demo || exit 1
echo "tracerd running (pid $TRACERD_PID); summaries go to $TRACERD_FILE"
echo
tr_cli run --name demo --pipeline demo-pipeline --job-file "$TMP/job" -- "$TOP/contrib/demo/pipeline.sh"
rc=$?
# the summary goes through tracerd's spool to the file: a moment
wait_until 20 "the demo job's summary" summary_of_job "$TMP/job"
echo
tr_cli status
echo
tr_cli show "$(cat "$TMP/job")"
mkdir -p "$TOP/build"
cp "$TRACERD_FILE" "$TOP/build/demo-jobs.ndjson"
echo
echo "The summary (JSON) is kept in build/demo-jobs.ndjson:  build/tracer -o file=build/demo-jobs.ndjson show last --json"
exit $rc
