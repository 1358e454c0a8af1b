#!/bin/bash
# run.sh BUILD - `tracer tune` on real jobs: a local tracerd records jobs
# run with `tracer run --name STEP --pipeline P` (a step whose memory
# grows with its input, read from a file, and a fixed one), then tune
# writes every format: each says exactly what its JSON says (formats.py),
# the Snakemake profile passes the real `snakemake --profile DIR -n`, the
# AWS Batch overrides match botocore's SubmitJob model, the memory fit is
# used (R² >= 0.8) and no request is below a succeeded run's peak, the
# HTML page renders in chromium.  Fairness: a second user's runs of the
# same step name leave the first user's advice exactly as it was, and
# each user sees only their own runs.  Root (BPF).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-tune.XXXXXX)
. "$TOP/tests/lib.sh"
UA=tracer-tua
UB=tracer-tub
ADM=tracer-tuadm
cleanup() {
	stop_tracerd
	remove_test_users
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in python3 setpriv useradd snakemake groovy; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (scripts/install-deps.sh test)"; exit 1; }
done
ls /usr/lib/python3/dist-packages/botocore/data/batch/*/service-2.json >/dev/null 2>&1 ||
	{ echo "FAIL: botocore's AWS Batch model is not installed (python3-botocore)"; exit 1; }
make_test_users "$ADM" "$UA" "$UB"
read -r UTRACER GROW < <(user_copy "$BUILD/tracer" "$TOP/tests/tune/grow.py" | paste -sd' ') || exit 1
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"; }
ucli() { local u=$1; shift; as "$u" "$UTRACER" -o socket="$TRACERD_SOCK" -o file="$TMP/nonexistent.ndjson" "$@"; }

start_tracerd tune || exit 1
chmod 0644 "$TRACERD_FILE" 2>/dev/null

# job AS_USER|root NAME PIPELINE MIB: one recorded job reading an input of
# MIB MiB and holding it twice in memory; waits for its summary
N=0
job() {
	local who=$1 name=$2 pl=$3 mib=$4 jf
	N=$((N + 1))
	jf=$TMP/job$N
	if [ "$who" = root ]; then
		tr_cli run --job-file "$jf" --name "$name" --pipeline "$pl" --cpus 2 --mem 1G \
			--time 10m -- python3 "$GROW" "$TMP/in" "$mib" >/dev/null ||
			{ fail "job $N ($name, $mib MiB) failed"; return 1; }
	else
		as "$who" "$UTRACER" -o socket="$TRACERD_SOCK" run --job-file "$TMP/$who/job$N" \
			--name "$name" --pipeline "$pl" --cpus 2 --mem 1G --time 10m -- \
			python3 "$GROW" "$TMP/in" "$mib" >/dev/null ||
			{ fail "job $N of $who ($name) failed"; return 1; }
		cp "$TMP/$who/job$N" "$jf"
	fi
	wait_until 30 "the summary of job $N" summary_of_job "$jf"
}
head -c $((160 << 20)) /dev/urandom >"$TMP/in" && chmod 0644 "$TMP/in"

echo "== a pipeline of root's: a growing step of 4 input sizes, a fixed step of 3 runs"
for mib in 20 50 90 140; do job root grow PT "$mib"; done
for i in 1 2 3; do job root fixed PT 5; done
OUT=$TMP/out
mkdir -p "$OUT"
tr_cli tune --pipeline PT --format json -o "$OUT/tune.json" 2>"$TMP/err"
check "tracer tune --format json -o FILE: exit 0, nothing on stderr" test -s "$OUT/tune.json" -a ! -s "$TMP/err"
for f in table:table.txt nextflow:nextflow.config slurm:slurm.txt aws-batch:aws.json; do
	check "tracer tune --format ${f%%:*}" tr_cli tune --pipeline PT --format "${f%%:*}" -o "$OUT/${f#*:}"
done
# the command line another suite runs: -o into a profile directory not yet made
check "tracer tune --format snakemake -o DIR/config.yaml (DIR made)" \
	tr_cli tune --pipeline PT --format snakemake -o "$OUT/profile/config.yaml"
cp "$OUT/profile/config.yaml" "$OUT/config.yaml"
check "every format says exactly what the JSON says; aws-batch fits SubmitJob" \
	python3 "$TOP/tests/tune/formats.py" "$OUT/tune.json" "$OUT"
step_check() {
	python3 - "$OUT/tune.json" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
steps = {s["task"]: s for s in doc["steps"]}
g, f = steps.get("grow"), steps.get("fixed")
assert g and f and len(steps) == 2, sorted(steps)
assert g["runs"]["total"] == 4 and f["runs"]["total"] == 3, (g["runs"], f["runs"])
assert g["user"] == "root" and g["pipeline"] == "PT"
fit = g["memory"]["fit"]
# peak grows 2 MiB per MiB read: the fit is used and says so
assert fit["used"] and fit["r2"] >= 0.8 and fit["input_sizes"] == 4, fit
assert 1.5 < fit["b"] < 2.5, fit
for s in (g, f):
    r, m = s["request"], s["memory"]
    assert r["mem_bytes"] >= m["peak_completed_max_bytes"] * 1.2, (s["task"], r, m)
    assert r["cpus"] >= 1 and r["time_s"] >= 60
    # asked for 2 CPUs and 1 GiB: memory saved, CPUs never asked above 2
    assert s["saving"]["core_hours"] >= 0 and s["saving"]["gb_hours"] > 0, s["saving"]
assert not f["memory"]["fit"]["used"]
assert g["request"]["mem_bytes"] > f["request"]["mem_bytes"]
PY
}
check "grow: 4 runs, the input fit used (R² >= 0.8); no request under a peak" step_check
check "the Nextflow config names the input fit's variable" grep -q "memory = { (.*INPUT.size()" "$OUT/nextflow.config"
# Debian's groovy finds Java through JAVA_HOME (default-java may be absent)
[ -n "${JAVA_HOME:-}" ] || export JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
# the commented closure too, as the user would write it for an input "reads"
sed -n 's|^ *// \(memory = { .*INPUT.*\)$|process { withName: "x" { \1 } }|p' "$OUT/nextflow.config" |
	sed 's/INPUT/reads/g' >"$OUT/closure.config"
check "the Nextflow config and its input closure are Groovy that compiles (groovy)" \
	groovy "$TOP/tests/tune/parse.groovy" "$OUT/nextflow.config" "$OUT/closure.config"
check "the input closure was found" test -s "$OUT/closure.config"
check "the profile carries the rule's lambda of input.size_mb as a comment" \
	grep -q "^#   in the rule, by input size: resources: mem_mb=lambda wildcards, input: .*input.size_mb" "$OUT/config.yaml"

echo "== the real snakemake takes the profile"
SMK=$TMP/smk
mkdir -p "$SMK"
# each rule writes the threads and memory Snakemake gave it
cat >"$SMK/Snakefile" <<'SNAKE'
rule all:
    input: "b.txt", "c.txt"
rule grow:
    output: "b.txt"
    shell: "echo {threads} {resources.mem_mb} {resources.runtime} > {output}"
rule fixed:
    output: "c.txt"
    threads: 1
    shell: "echo {threads} {resources.mem_mb} {resources.runtime} > {output}"
SNAKE
given() { python3 -c 'import json,math,sys; s={s["task"]: s["request"] for s in json.load(open(sys.argv[1]))["steps"]}[sys.argv[2]]; print(s["cpus"], math.ceil(s["mem_bytes"] / 1e6), math.ceil(s["time_s"] / 60))' "$OUT/tune.json" "$1"; }
(cd "$SMK" && snakemake --profile "$OUT/profile" -n --cores 2 >"$TMP/smk.out" 2>&1)
check "snakemake --profile DIR -n: exit 0" test $? = 0
read -r _ MB _ <<<"$(given grow)"
check "snakemake -n shows the profile's mem_mb=$MB for rule grow" grep -q "mem_mb=$MB" "$TMP/smk.out"
(cd "$SMK" && snakemake --profile "$OUT/profile" --cores 2 -q >"$TMP/smk-run.out" 2>&1)
check "snakemake --profile DIR runs the pipeline" test $? = 0
check "rule grow (no threads: directive) gets the profile's threads, mem_mb, runtime" \
	test "$(cat "$SMK/b.txt" 2>&1)" = "$(given grow)"
check "rule fixed (threads: 1) gets the profile's threads, mem_mb, runtime" \
	test "$(cat "$SMK/c.txt" 2>&1)" = "$(given fixed)"

echo "== the page"
check "tracer tune --html FILE" tr_cli tune --pipeline PT --html "$OUT/tune.html" -o /dev/null
check "the page has a chart per step and quantity" \
	test "$(grep -o 'id="chart-tune-[0-9]-\(cpu\|mem\|wall\)"' "$OUT/tune.html" | sort -u | wc -l)" = 6

echo "== fairness: another user's runs of the same step"
for i in 1 2 3; do job "$UA" align PF $((10 * i)); done
owners() { python3 -c 'import json,sys; print(" ".join("%s:%d" % (s.get("user", ""), s["runs"]["total"]) for s in json.load(open(sys.argv[1]))["steps"]))' "$1"; }
steps_of() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["steps"], sort_keys=True))' "$1"; }
ucli "$UA" tune --pipeline PF --format json -o "$TMP/$UA/before.json"
check "$UA: tune through tracerd, one step of 3 runs" test "$(owners "$TMP/$UA/before.json")" = "$UA:3"
for i in 1 2 3; do job "$UB" align PF 120; done
ucli "$UA" tune --pipeline PF --format json -o "$TMP/$UA/after.json"
check "$UA's advice is the same after $UB's runs" test "$(steps_of "$TMP/$UA/before.json")" = "$(steps_of "$TMP/$UA/after.json")"
ucli "$UB" tune --pipeline PF --format json -o "$TMP/$UB/b.json"
check "$UA sees only their own 3 runs" test "$(owners "$TMP/$UA/after.json")" = "$UA:3"
check "$UB sees only their own 3 runs" test "$(owners "$TMP/$UB/b.json")" = "$UB:3"
tr_cli tune --pipeline PF --format json -o "$TMP/root-pf.json"
check "root: one step per owner of the name" test "$(owners "$TMP/root-pf.json")" = "$UA:3 $UB:3"
tr_cli tune --pipeline PF --shared --format json -o "$TMP/root-shared.json"
check "root --shared: one step of the pipeline" test "$(owners "$TMP/root-shared.json")" = ":6"

no_sanitizer_reports "no sanitizer report in tracerd's log" "${TRACERD_LOGS[@]}"
finish
