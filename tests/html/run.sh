#!/bin/bash
# run.sh BUILD - the HTML report in a real browser.  tracerd (sampling
# every 200 ms, advice for every job, prices set) records the demo
# pipeline and a second task of the same run, and a job whose task name,
# executable path and argv are hostile (markup, quotes, invalid UTF-8);
# a summary of 100,000 processes is made from the demo's.  `tracer show
# --html` and `tracer report --run --html` write the pages, and Debian's
# headless chromium opens them with networking off (unresolvable hosts, a
# proxy on a closed loopback port) and its NetLog on: the DOM has the
# tools, lanes, notes, charts and snippets the summaries say, the
# screenshot is not blank, the page made no request and nothing was
# refused, the hostile page ran no script of the job's and shows its text
# as text, the markup alone (JavaScript off) has it all, and the 100,000-
# process page is under 2 MB.  Two control pages (the hostile text left
# raw, an image from the network) show that these checks catch what they
# look for.  With UPDATE_SCREENSHOT=1 it also writes the demo page's
# screenshot to docs/report.png (the README's picture).  Needs root
# (tracerd).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-html.XXXXXX)
. "$TOP/tests/lib.sh"
CLOSED_PORT=18399 # nothing listens there: the browser's proxy
SYNTH_PID=
cleanup() {
	stop_tracerd
	[ -n "$SYNTH_PID" ] && kill "$SYNTH_PID" 2>/dev/null && wait "$SYNTH_PID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
command -v chromium >/dev/null || { echo "FAIL: chromium is not installed (apt-get install chromium)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed"; exit 1; }
PAGE="python3 $TOP/tests/html/page.py"

# chromium NAME URL [extra flags]: DOM in $TMP/NAME.dom, screenshot
# NAME.png, NetLog NAME.netlog, console log NAME.err
chrome() {
	local name=$1 url=$2
	shift 2
	rm -rf "$TMP/profile"
	timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND' --proxy-server="127.0.0.1:$CLOSED_PORT" \
		--user-data-dir="$TMP/profile" --enable-logging=stderr --v=0 \
		--log-net-log="$TMP/$name.netlog" --window-size=1280,1800 \
		--screenshot="$TMP/$name.png" --dump-dom "$@" "$url" >"$TMP/$name.dom" 2>"$TMP/$name.err"
}

echo "== recording jobs with tracerd"
start_tracerd html -o sample_interval_ms=200 -o advice_min_runtime_s=0 \
	-o price_cpu_hour=0.05 -o price_gb_hour=0.01 || exit 1
# the job `make demo` runs (contrib/demo/run-demo.sh): CPUs of which the
# pipeline leaves all but one idle, 4 GiB, 1 hour
read -r CPUS FIRST < <("$TOP/contrib/demo/alloc.sh")
trun "$TMP/demo.job" --name demo --run html-run --pipeline demo-pipeline --cpus "$CPUS" --mem 4G --time 1h \
	-- taskset -c "$FIRST" "$TOP/contrib/demo/pipeline.sh" >"$TMP/demo.out" 2>&1
check "the demo pipeline ran under tracer run" test $? = 0
# the second task also moves 8 MiB over loopback TCP (its page's network row)
NP=$BUILD/tests/helpers/netpeer
trun "$TMP/second.job" --name second --run html-run --pipeline demo-pipeline -- \
	sh -c "head -c 20000000 /dev/urandom | gzip -1 > /dev/null; rm -f $TMP/np.ready
		$NP tcp-recv 18310 $TMP/np.ready >/dev/null & $NP tcp-send 18310 8388608 $TMP/np.ready; wait
		sleep 0.5"
# hostile: markup in the task name, the executable's path and name, argv
EVIL_DIR="$TMP/<script>document.title='pwned'</script>"
EVIL_EXE="$EVIL_DIR/\"><img src=x onerror=\"document.body.appendChild(document.createElement('hr')).id='pwned'\">"
mkdir -p "$EVIL_DIR" && cp "$(command -v sleep)" "$EVIL_EXE"
EVIL_NAME="<script>document.title='pwned'</script>"
trun "$TMP/evil.job" --name "$EVIL_NAME" --run hostile-run -- \
	"$EVIL_EXE" 0.5 "<script>document.title='pwned'</script>" $'\xff\xfe' "'quoted'" \
	2>/dev/null # sleep says the extra operands are invalid: the job fails, fine
for j in demo second evil; do
	wait_until 60 "the $j job's summary" summary_of_job "$TMP/$j.job"
done
validate_summaries "the summaries (with their timeseries) are valid against the schema" \
	--min 3 "$TRACERD_FILE"
check "the demo's summary has a time series of at least 5 points, flags and a recommendation" \
	python3 - "$TRACERD_FILE" "$(cat "$TMP/demo.job")" <<'PY'
import json, sys
s = next(json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["job"] == sys.argv[2])
ts = s["timeseries"]
assert ts["points"] >= 5 and len(ts["cpu_cores"]) == ts["points"], ts
assert max(ts["mem_bytes"]) > 300 << 20, "the 400 MiB step is not in the series"
assert s.get("flags") and s.get("recommendation") and s.get("cost"), "no flags/recommendation/cost"
PY

# the 100,000-process summary, made from the demo's (in the background)
python3 - "$TRACERD_FILE" "$(cat "$TMP/demo.job")" "$TMP/demo.ndjson" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    if json.loads(l)["job"] == sys.argv[2]:
        open(sys.argv[3], "w").write(l)
PY
$PAGE synth "$TMP/demo.ndjson" "$TMP/big.ndjson" 100000 >/dev/null &
SYNTH_PID=$!

echo "== writing the pages"
T() { tr_cli "$@"; }
DEMO=$(cat "$TMP/demo.job") EVIL=$(cat "$TMP/evil.job")
check "tracer show --html writes the demo job's page" T show "$DEMO" --html "$TMP/demo.html"
check "tracer show --html - writes the same page to stdout" \
	sh -c "$BUILD/tracer -o file=$TRACERD_FILE show $DEMO --html - | cmp - $TMP/demo.html"
check "tracer report --run html-run --html writes the run's page" \
	T report --run html-run --html "$TMP/run.html"
check "tracer show --html writes the hostile job's page" T show "$EVIL" --html "$TMP/evil.html"
check "tracer show --html writes the second job's page" T show "$(cat "$TMP/second.job")" --html "$TMP/second.html"
check "the second job's page: network row with the 8 MiB TCP exchange and its connection, disk row, Network and Disk columns" \
	$PAGE dom "$TMP/second.html" --tool gzip --tool netpeer --text "TCP sent 8.0 MiB, received 8.0 MiB" \
	--text "TCP connections: 1 made, 1 accepted, 2 distinct remote endpoints" \
	--text "block requests of the job's processes" --text "Network" --text "Disk"
check "tracer report --html without --run is a usage error (exit 2)" \
	sh -c "$BUILD/tracer -o file=$TRACERD_FILE report --html $TMP/x.html; test \$? = 2"
check "tracer report --run html-run counts the run's 2 tasks only" \
	sh -c "$BUILD/tracer -o file=$TRACERD_FILE report --run html-run --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)[\"jobs\"] == 2 else 1)'"
no_such_run() {
	local out
	out=$("$BUILD/tracer" -o file="$TRACERD_FILE" report --run nosuchrun --html "$TMP/x.html" 2>&1)
	[ $? = 1 ] && grep -q 'no task of run nosuchrun' <<<"$out" && [ ! -e "$TMP/x.html" ]
}
check "tracer report --run with no such run exits 1, says so and writes nothing" no_such_run
stop_tracerd

echo "== the demo job's page"
chrome demo "file://$TMP/demo.html"
DEMO_ARGS=$(python3 - "$TMP/demo.ndjson" <<'PY'
import json, shlex, sys
s = json.loads(open(sys.argv[1]).readline())
a = ["--title", f"tracer: demo ({s['job']})", "--charts", "2", "--snippets", "4",
     "--text", "%.4f" % s["cost"]["total"], "--min-bars", "20"]
for t in ("bwa mem", "samtools sort", "gzip", "dd", "sort"):
    a += ["--lane", t, "--tool", t]
for t in s["tools"][:200]:
    a += ["--tool", t["tool"]]
for f in s["flags"]:
    a += ["--flag", f["id"], "--text", f["message"]]
print(shlex.join(a))
PY
)
eval "check \"DOM: title, a lane and a row per tool, every flag as a note with its sentence, 2 charts, 4 snippets, the cost\" $PAGE dom $TMP/demo.dom $DEMO_ARGS"
check "screenshot of the demo page is not blank" $PAGE png "$TMP/demo.png"
# UPDATE_SCREENSHOT=1: the README's picture, docs/report.png, from this page
# (the top of it: header, charts, notes), kept under 300 KB
if [ -n "${UPDATE_SCREENSHOT:-}" ]; then
	chrome readme "file://$TMP/demo.html" --window-size=1100,1300
	check "UPDATE_SCREENSHOT: the page's screenshot is not blank" $PAGE png "$TMP/readme.png"
	check "UPDATE_SCREENSHOT: under 300 KB" test "$(stat -c %s "$TMP/readme.png")" -lt 307200
	check "UPDATE_SCREENSHOT: docs/report.png written" cp "$TMP/readme.png" "$TOP/docs/report.png"
fi
check "the demo page made no request and nothing failed to load" \
	$PAGE net "$TMP/demo.netlog" "$TMP/demo.err" "file://$TMP/demo.html"
# the page's script only answers events (hover, click): the markup as
# written, what a browser without JavaScript shows, has it all already
eval "check \"JavaScript off: the markup as written has the same lanes, tools, notes, charts and snippets\" $PAGE dom $TMP/demo.html $DEMO_ARGS"

echo "== the run's page"
chrome run "file://$TMP/run.html"
check "DOM: a lane per task (demo, second), the run's tools, 2 charts" \
	$PAGE dom "$TMP/run.dom" --title "tracer: run html-run" --lane demo --lane second \
	--tool "bwa mem" --tool gzip --charts 2 --text "Tasks"
check "screenshot of the run page is not blank" $PAGE png "$TMP/run.png"
check "the run page made no request and nothing failed to load" \
	$PAGE net "$TMP/run.netlog" "$TMP/run.err" "file://$TMP/run.html"

echo "== tracer tune's page"
check "tracer tune --run html-run --html writes the page" \
	T tune --run html-run --html "$TMP/tune.html" -o /dev/null
chrome tune "file://$TMP/tune.html"
check "DOM: a section per step (demo, second), 3 charts each (CPU, memory, wall)" \
	$PAGE dom "$TMP/tune.dom" --title "tracer tune: run html-run" --charts 6 \
	--text "Request" --text "Saving"
check "screenshot of the tune page is not blank" $PAGE png "$TMP/tune.png"
check "the tune page made no request and nothing failed to load" \
	$PAGE net "$TMP/tune.netlog" "$TMP/tune.err" "file://$TMP/tune.html"
check "tracer tune --html of the hostile run: the task name is text, no marker element" \
	T tune --run hostile-run --html "$TMP/tune-evil.html" -o /dev/null
chrome tune-evil "file://$TMP/tune-evil.html"
check "the hostile tune page ran nothing of the job's: its name shown as text, one script" \
	$PAGE dom "$TMP/tune-evil.dom" --absent-id pwned --absent-tag img --text "$EVIL_NAME" \
	--scripts 1 --charts 3

echo "== the hostile job's page"
chrome evil "file://$TMP/evil.html"
check "the hostile page ran nothing of the job's: title and text as written, no marker element, no <img>, one script" \
	$PAGE dom "$TMP/evil.dom" --title "tracer: $EVIL_NAME ($EVIL)" --absent-id pwned \
	--absent-tag img --absent-tag hr --text "$EVIL_NAME" --text "\\xff\\xfe" \
	--text "onerror=\"document.body.appendChild" --text "'quoted'" --scripts 1
check "the hostile page made no request and nothing failed to load" \
	$PAGE net "$TMP/evil.netlog" "$TMP/evil.err" "file://$TMP/evil.html"
# control: the same page with the job's text left raw must run it, and an
# image from the network must be refused: the checks above can fail
python3 - "$TMP/evil.html" "$TMP/control.html" "$EVIL_NAME" "$CLOSED_PORT" <<'PY'
import sys
page, out, name, port = sys.argv[1:]
html = open(page, encoding="utf-8").read()
raw = ("<div>" + name + "</div><img src=x onerror=\"document.body.appendChild("
       "document.createElement('hr')).id='pwned'\"><img src=\"http://127.0.0.1:" + port + "/x.png\">")
open(out, "w", encoding="utf-8").write(html.replace("<body>\n", "<body>\n" + raw, 1))
PY
chrome control "file://$TMP/control.html"
check "control: raw job text does run (the marker element is made), so the check above can fail" \
	not $PAGE dom "$TMP/control.dom" --absent-id pwned
check "control: an image from the network is caught by the network check" \
	not $PAGE net "$TMP/control.netlog" "$TMP/control.err" "file://$TMP/control.html"

echo "== 100,000 processes"
wait "$SYNTH_PID"
check "the 100,000-process summary was made" test $? = 0
SYNTH_PID=
check "tracer show --html on 100,000 processes" \
	"$BUILD/tracer" -o file="$TMP/big.ndjson" show synthetic-100k --html "$TMP/big.html"
BIG=$(stat -c %s "$TMP/big.html" 2>/dev/null || echo 0)
DEMO_SIZE=$(stat -c %s "$TMP/demo.html")
check "the 100,000-process page is under 2 MB ($BIG bytes; the demo's $DEMO_SIZE)" \
	test "$BIG" -gt 0 -a "$BIG" -lt 2000000
echo "sizes: demo job page $DEMO_SIZE bytes, 100,000-process page $BIG bytes, summary $(stat -c %s "$TMP/big.ndjson") bytes"
# opened with tests/html/jstest.js appended: it sorts and clicks as a user
python3 - "$TMP/big.html" "$TOP/tests/html/jstest.js" "$TMP/big-js.html" <<'PY'
import sys
page, js, out = sys.argv[1:]
html = open(page, encoding="utf-8").read()
i = html.rindex("</body>")
open(out, "w", encoding="utf-8").write(html[:i] + "<script>\n" + open(js).read() + "</script>\n" + html[i:])
PY
chrome big "file://$TMP/big-js.html"
check "DOM: 40 tool lanes and the shared one, 400 bars, the aggregation said" \
	$PAGE dom "$TMP/big.dom" --lane tool00 --lane tool39 --lane "(other tools)" --min-bars 400 \
	--text "aggregated" --text "400 processes listed one by one" --text "the job ran 100000" --charts 2
check "the page's script sorts the tools table both ways and a click on a bar selects its process row" \
	$PAGE dom "$TMP/big.dom" --js 1
check "screenshot of the 100,000-process page is not blank" $PAGE png "$TMP/big.png"
check "the 100,000-process page made no request" \
	$PAGE net "$TMP/big.netlog" "$TMP/big.err" "file://$TMP/big-js.html"
finish
