#!/bin/bash
# run-demo.sh BUILD - start tracerd on the local file sink, run the demo
# pipeline under `tracer run` as a job with an allocation (up to 4 of
# this machine's CPUs, 4 GiB, 1 hour), print `tracer show` for it, write
# its HTML report, stop tracerd.  The allocation is real but more than
# the job uses, as many are: the pipeline runs pinned to the allocation's
# first CPU (taskset), its largest step holds 400 MiB and its last step
# sleeps, so the report has a note on each.  The job lasts well under a
# minute, so this tracerd gives advice from 1 s of run time on
# (advice_min_runtime_s, 300 s by default).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-demo-run.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'stop_tracerd; rm -rf "$TMP"' EXIT
if [ "$(id -u)" != 0 ]; then echo "make demo needs root (it loads BPF programs)"; exit 1; fi
for t in python3 bwa samtools taskset; do
	command -v "$t" >/dev/null || { echo "make demo: $t is missing (scripts/install-deps.sh demo installs it)"; exit 1; }
done

read -r CPUS FIRST < <("$TOP/contrib/demo/alloc.sh") && [ -n "$FIRST" ] || exit 1
start_tracerd demo -o advice_min_runtime_s=1 -o sample_interval_ms=500 || exit 1
echo "tracerd running (pid $TRACERD_PID); summaries go to $TRACERD_FILE"
echo "This tracerd gives advice from 1 s of run time on (-o advice_min_runtime_s=1; default 300 s)."
echo
echo "The job asks $CPUS CPUs and runs pinned to CPU $FIRST, as a pipeline whose tools bind to one core."
echo
echo "\$ tracer run --name demo --cpus $CPUS --mem 4G --time 1h -- taskset -c $FIRST contrib/demo/pipeline.sh"
tr_cli run --name demo --pipeline demo-pipeline --cpus "$CPUS" --mem 4G --time 1h \
	--job-file "$TMP/job" -- taskset -c "$FIRST" "$TOP/contrib/demo/pipeline.sh"
rc=$?
# the summary goes through tracerd's spool to the file: a moment
wait_until 20 "the demo job's summary" summary_of_job "$TMP/job" || exit 1
JOB=$(cat "$TMP/job")
cp "$TRACERD_FILE" "$BUILD/demo-jobs.ndjson" || exit 1
echo
echo "\$ tracer show $JOB"
tr_cli show "$JOB"
tr_cli show "$JOB" --html "$BUILD/demo-report.html" || exit 1
T="$BUILD/tracer -o file=$BUILD/demo-jobs.ndjson"
cat <<MSG

The HTML report:  $BUILD/demo-report.html
  open it:        xdg-open $BUILD/demo-report.html   (or copy it to a machine with a browser)
Every tool and the process tree:  $T show last --all
The summary as JSON:              $T show last --json
MSG
exit $rc
