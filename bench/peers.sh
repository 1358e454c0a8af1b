#!/bin/bash
# peers.sh BUILD - tracer against the collectors sites run today, on the
# same jobs, in one run (make bench-peers; part "peers" of bench/run.sh).
# The pipeline bench/peers/pipeline.sh runs once per collector and pass,
# each pass paired with one run without any collector (the order inside a
# pair alternates, and so does the order of the collectors from one round
# to the next); a few passes without a collector record the kernel's wait4
# figures of every process (the ground truth).  Prints the table
# (bench/peers_table.py) and writes it into docs/benchmarks.md.
#
# Environment: PEERS_PAIRS (3) passes per collector, PEERS_TRUTH_RUNS (3),
# PEERS_SCALE (1) the size of the data, PEERS_SHORT (2000) 2 ms processes,
# PEERS_COLLECTORS (all: tracer slurm30 slurm1 snakemake psutil500
# psutil5s procexp pidstat acct), PEERS_DOC (docs/benchmarks.md; empty:
# write no file), PEERS_KEEP=1 keeps the temporary directory,
# PEERS_LOCK=FILE holds that flock lock while Slurm and Prometheus run
# (waiting PEERS_LOCK_WAIT, 1800 s, at most: then their rows say so).
# Everything it starts it stops by pid; process accounting is switched
# off again on every exit.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
P=$TOP/bench/peers
TMP=$(mktemp -d /tmp/tracer-bench-peers.XXXXXX)
RES=$TMP/res
PAIRS=${PEERS_PAIRS:-3}
TRUTH_RUNS=${PEERS_TRUTH_RUNS:-3}
export PEERS_SCALE=${PEERS_SCALE:-1} PEERS_SHORT=${PEERS_SHORT:-2000}
COLLECTORS=${PEERS_COLLECTORS:-tracer slurm30 slurm1 snakemake psutil500 psutil5s procexp pidstat acct}
DOC=${PEERS_DOC-$TOP/docs/benchmarks.md}
# Debian's python3 (python3-psutil is its module), not a shim on PATH
PY=/usr/bin/python3
. "$TOP/tests/lib.sh"
. "$TOP/tests/slurm/cluster.sh"
. "$TOP/tests/slurm/accounting.sh"
# srun may ask for a shorter gathering period than the cluster's, not a
# longer one: the cluster gathers every 30 s, the 1 s pass asks for 1 s
eval "$(declare -f acct_slurm_conf | sed '1s/acct_slurm_conf/acct_slurm_conf_suites/')"
acct_slurm_conf() { acct_slurm_conf_suites | sed 's/^JobAcctGatherFrequency=.*/JobAcctGatherFrequency=task=30/'; }

ACCT_ON=
SLURM_UP=
KIDS=()
# forget_kid PID: a process started here that has been waited for
forget_kid() {
	local k keep=()
	for k in "${KIDS[@]}"; do [ "$k" = "$1" ] || keep+=("$k"); done
	KIDS=("${keep[@]}")
}
cleanup() {
	local pid
	trap - EXIT INT TERM
	[ -n "$ACCT_ON" ] && { accton off || echo "peers: accton off failed: process accounting may still be on" >&2; }
	for pid in "${KIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	stop_tracerd
	[ -n "$SLURM_UP" ] && { cluster_cancel_jobs; cluster_stop; }
	if [ "${PEERS_KEEP:-}" = 1 ]; then echo "peers: kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
need_root
mkdir -p "$RES" "$TMP/bin" || exit 1

# ---- prerequisites: a missing one is an error that names its package ----
missing=
for c in bwa:bwa samtools:samtools python3:python3 gcc:gcc curl:curl snakemake:snakemake \
	pidstat:sysstat accton:acct srun:slurm-wlm slurmdbd:slurmdbd mariadbd:mariadb-server prometheus:prometheus prometheus-process-exporter:prometheus-process-exporter; do
	command -v "${c%%:*}" >/dev/null 2>&1 || missing+=" ${c#*:}"
done
$PY -c 'import psutil' 2>/dev/null || missing+=" python3-psutil"
if [ -n "$missing" ]; then
	echo "FAIL: bench-peers needs:$missing (scripts/install-deps.sh bench installs them)"
	exit 1
fi
"$PY" "$TOP/bench/peers_collect.py" selftest >/dev/null || { echo "FAIL: bench/peers_collect.py selftest"; exit 1; }
[ -x "$H/spin" ] || { echo "FAIL: $H/spin is not built (make all)"; exit 1; }

# ---- the workload's programs: pk_* names the collectors can tell apart ----
for f in peers_wait:peers_wait peers_spike:pk_spike peers_orphan:pk_orphan; do
	# static where the libc allows it: the launcher's own pages count in the
	# ru_maxrss of what it starts (exec keeps the old image's peak)
	src=("$TOP/bench/${f%%:*}.c" "$TOP/bench/peers_burn.c")
	gcc -O2 -Wall -Wextra -Werror -static -o "$TMP/bin/${f#*:}" "${src[@]}" 2>/dev/null ||
		gcc -O2 -Wall -Wextra -Werror -o "$TMP/bin/${f#*:}" "${src[@]}" ||
		{ echo "FAIL: cannot build bench/${f%%:*}.c"; exit 1; }
done
ln -s "$PY" "$TMP/bin/pk_python3"
for t in bwa samtools gzip awk sort; do ln -s "$(command -v $t)" "$TMP/bin/pk_$t"; done
ln -s "$H/spin" "$TMP/bin/pk_short"
"$PY" - "$TMP/bin" >"$TMP/map.json" <<'PY'
import json, os, sys
d = sys.argv[1]
print(json.dumps({os.path.basename(os.path.realpath(os.path.join(d, f))): f[3:]
                  for f in os.listdir(d) if f.startswith("pk_")}))
PY
export PEERS_W=$TMP/bin/peers_wait PEERS_BIN=$TMP/bin

# workdir: a fresh directory for one run of the pipeline
workdir() { mktemp -d "$TMP/w.XXXXXX"; }
# timed OUT CMD...: run CMD, its wall time in seconds into OUT; its status
timed() {
	local out=$1 s rc
	shift
	s=$(now_us)
	"$@"
	rc=$?
	echo "$(now_us) $s" | awk '{printf "%.3f\n", ($1 - $2) / 1e6}' >"$out"
	return $rc
}
# own_cost PID: "cpu_s hwm_kb" of a running process
own_cost() {
	local cpu hwm
	cpu=$(sed 's/.*) //' "/proc/$1/stat" | awk '{printf "%.2f", ($12 + $13) / 100}')
	hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$1/status")
	echo "$cpu $hwm"
}
collect() { "$PY" "$TOP/bench/peers_collect.py" "$@"; }
pipeline() { "$P/pipeline.sh" "$1" >>"$TMP/pipeline.log" 2>&1; }

# ---- one pass per collector: C.N.json, C.N.wall, C.N.cost ----
pass_none() { local wd; wd=$(workdir) && PEERS_TRUTH=$TMP/none.$1.$2.truth timed "$RES/$1.$2.base" pipeline "$wd"; }

pass_truth() {
	local wd
	wd=$(workdir) || return 1
	PEERS_TRUTH=$TMP/truth.$1.tsv pipeline "$wd" || return 1
	collect truth "$TMP/truth.$1.tsv" >"$RES/truth.$1.json"
}

pass_tracer() {
	local wd c0 c1
	wd=$(workdir) || return 1
	start_tracerd "peers$1" >/dev/null || return 1
	c0=$(own_cost "$TRACERD_PID")
	timed "$RES/tracer.$1.wall" tr_cli run --job-file "$TMP/tracer.$1.job" -- "$P/pipeline.sh" "$wd" \
		>>"$TMP/pipeline.log" 2>&1 || { stop_tracerd; return 1; }
	wait_until 30 "the summary of the tracer pass $1" summary_of_job "$TMP/tracer.$1.job" || { stop_tracerd; return 1; }
	c1=$(own_cost "$TRACERD_PID")
	# tracerd's CPU during the job (its start, BPF loading included, is
	# not the job's); its peak RSS since its start
	echo "$c0 $c1" | awk '{printf "%.2f %s\n", $3 - $1, $4}' >"$RES/tracer.$1.cost"
	collect tracer "$TRACERD_FILE" "$TMP/tracer.$1.job" "$TMP/map.json" >"$RES/tracer.$1.json"
	local rc=$?
	stop_tracerd
	return $rc
}

pass_psutil() { # pass_psutil KEY INTERVAL N
	local wd
	wd=$(workdir) || return 1
	timed "$RES/$1.$3.wall" "$PY" "$TOP/bench/peers_psutil.py" "$2" "$TMP/$1.$3.out" -- \
		"$P/pipeline.sh" "$wd" >>"$TMP/pipeline.log" 2>&1 || return 1
	collect psutil "$TMP/$1.$3.out" >"$RES/$1.$3.json" || return 1
	"$PY" -c 'import json, sys; s = json.load(open(sys.argv[1]))["self"]; print("%.2f %d" % (s["cpu_s"], s["hwm_kb"]))' \
		"$TMP/$1.$3.out" >"$RES/$1.$3.cost"
}
pass_psutil500() { pass_psutil psutil500 0.5 "$1"; }
pass_psutil5s() { pass_psutil psutil5s 5 "$1"; }

pass_pidstat() {
	local wd pid rc
	wd=$(workdir) || return 1
	pidstat -u -r -d -h -p ALL 1 >"$TMP/pidstat.$1.out" 2>&1 &
	pid=$!
	KIDS+=("$pid")
	wait_until 10 "pidstat's first sample" grep -q '^#' "$TMP/pidstat.$1.out" || return 1
	timed "$RES/pidstat.$1.wall" pipeline "$wd"
	rc=$?
	own_cost "$pid" >"$RES/pidstat.$1.cost"
	kill -INT "$pid" && wait "$pid"
	forget_kid "$pid"
	[ $rc = 0 ] && collect pidstat "$TMP/pidstat.$1.out" >"$RES/pidstat.$1.json"
}

pass_acct() {
	local wd rc
	wd=$(workdir) || return 1
	: >"$TMP/acct.$1" && chmod 0600 "$TMP/acct.$1" || return 1
	accton "$TMP/acct.$1" || { echo "peers: accton $TMP/acct.$1 failed"; return 1; }
	ACCT_ON=1
	timed "$RES/acct.$1.wall" pipeline_bg "$wd"
	rc=$?
	accton off || { echo "peers: accton off failed"; return 1; }
	ACCT_ON=
	# in the kernel: no process of its own to measure
	echo "- -" >"$RES/acct.$1.cost"
	[ $rc = 0 ] && collect acct "$TMP/acct.$1" "$(cat "$TMP/root.pid")" >"$RES/acct.$1.json"
}
# the pipeline with its pid in root.pid (acct's records name parents by pid)
pipeline_bg() { "$P/pipeline.sh" "$1" >>"$TMP/pipeline.log" 2>&1 & echo $! >"$TMP/root.pid"; wait $!; }

pass_snakemake() {
	local wd pid s0 cost=
	wd=$(workdir) || return 1
	s0=$(now_us)
	snakemake -s "$P/Snakefile" -d "$wd" --cores 2 --quiet --config w="$PEERS_W -o $PEERS_TRUTH" b="$PEERS_BIN" \
		scale="$PEERS_SCALE" short="$PEERS_SHORT" here="$P" >>"$TMP/pipeline.log" 2>&1 &
	pid=$!
	KIDS+=("$pid")
	# snakemake's own CPU and peak RSS at the last sight, every 0.5 s
	while ! proc_gone "$pid"; do
		cost=$(own_cost "$pid" 2>/dev/null) || break
		sleep 0.5
	done
	wait "$pid"
	local rc=$?
	echo "$(now_us) $s0" | awk '{printf "%.3f\n", ($1 - $2) / 1e6}' >"$RES/snakemake.$1.wall"
	forget_kid "$pid"
	echo "${cost:-- -}" >"$RES/snakemake.$1.cost"
	[ $rc = 0 ] && collect snakemake "$wd/bench" >"$RES/snakemake.$1.json"
}

PROM_PORT=$((20000 + $$ % 20000)) EXP_PORT=$((20001 + $$ % 20000))
promq() { curl -sf --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
# prom_scraped_after T: Prometheus has scraped the exporter after time T
prom_scraped_after() {
	promq 'timestamp(up{job="pe"})' | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; sys.exit(0 if r and float(r[0]["value"][1]) > float(sys.argv[1]) else 1)' "$1"
}
pass_procexp() {
	local wd epid ppid end rc d=$TMP/procexp.$1
	wd=$(workdir) && mkdir -p "$d" || return 1
	printf 'process_names:\n  - name: "{{.Comm}}"\n    cmdline: [".+"]\n' >"$d/pe.yml"
	printf 'global:\n  scrape_interval: 15s\nscrape_configs:\n  - job_name: pe\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' \
		"$EXP_PORT" >"$d/prom.yml"
	prometheus-process-exporter -config.path "$d/pe.yml" -web.listen-address "127.0.0.1:$EXP_PORT" >"$d/pe.log" 2>&1 &
	epid=$!
	KIDS+=("$epid")
	prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$d/prom.log" 2>&1 &
	ppid=$!
	KIDS+=("$ppid")
	# the exporter answers (this first read primes its counters, as a
	# long-running exporter's would be) and Prometheus has scraped it
	# once; then the pipeline starts at a random point of the 15 s
	# interval, as a job does under a Prometheus that runs all along
	# (Prometheus's own first scrape comes at an offset fixed by the
	# target: without this, every pass would start at the same phase)
	if wait_until 30 "process-exporter to answer" curl -sf -o /dev/null "http://127.0.0.1:$EXP_PORT/metrics" &&
		wait_until 60 "Prometheus's first scrape" prom_scraped_after 0 &&
		sleep "$((RANDOM % 15)).$((RANDOM % 10))"; then
		timed "$RES/procexp.$1.wall" pipeline "$wd"
		rc=$?
		end=$(date +%s.%N)
		# what a site has: the scrapes up to the first one after the end
		wait_until 60 "a scrape after the pipeline's end" prom_scraped_after "$end" || rc=1
		own_cost "$epid" >"$RES/procexp.$1.cost"
		echo "prometheus itself: $(own_cost "$ppid") (cpu_s hwm_kb)" >>"$TMP/procexp.log"
		promq 'max_over_time(namedprocess_namegroup_cpu_seconds_total{groupname=~"pk_.*",mode=~"user|system"}[1h])' >"$d/cpu.json" &&
			promq 'max_over_time(namedprocess_namegroup_memory_bytes{groupname=~"pk_.*",memtype="resident"}[1h])' >"$d/rss.json" &&
			promq 'max_over_time(namedprocess_namegroup_num_procs{groupname=~"pk_.*"}[1h])' >"$d/procs.json" || rc=1
	else
		rc=1
		tail -n 5 "$d/pe.log" "$d/prom.log"
	fi
	kill -TERM "$epid" "$ppid"
	wait "$epid" "$ppid"
	forget_kid "$epid"
	forget_kid "$ppid"
	[ "$rc" = 0 ] && collect prom "$d" >"$RES/procexp.$1.json"
}

# ---- Slurm: one cluster with accounting (tests/slurm), for both passes ----
SLURM_UP=
slurm_start() {
	[ -n "$SLURM_UP" ] && return 0
	# shellcheck disable=SC2034 # read by tests/slurm/cluster.sh
	CLUSTER_DIR=$TMP/cluster CLUSTER_ACCT_USERS=root
	mkdir -p "$CLUSTER_DIR" && chmod 0755 "$TMP" || return 1
	SLURM_UP=1
	cluster_start >"$TMP/cluster.log" 2>&1 || { tail -n 20 "$TMP/cluster.log" >&2; return 1; }
}
# slurm_done JOBID: sacct has the step's end and its figures
slurm_done() {
	sacct -n -P -j "$1" --format=JobID,State,TotalCPU,MaxRSS >"$TMP/sacct.out" 2>&1 &&
		grep -q '^[0-9]*\.0|COMPLETED|' "$TMP/sacct.out"
}
pass_slurm() { # pass_slurm KEY FREQUENCY N
	local wd id
	if ! slurm_start; then
		echo "the Slurm cluster with accounting did not start (tests/slurm/cluster.sh; log kept with PEERS_KEEP=1)" >"$RES/$1.skip"
		return 0
	fi
	wd=$(workdir) || return 1
	timed "$RES/$1.$3.wall" srun -J "peers-$1-$3" -c 2 --acctg-freq=task="$2" "$P/pipeline.sh" "$wd" \
		>>"$TMP/pipeline.log" 2>&1 || return 1
	id=$(sacct -n -X -P --name="peers-$1-$3" --format=JobID | tail -n 1)
	wait_until 60 "sacct to have job $id's step" slurm_done "$id" || return 1
	cp "$TMP/sacct.out" "$TMP/$1.$3.sacct"
	# the gathering runs in slurmstepd, next to the job: not measured apart
	echo "- -" >"$RES/$1.$3.cost"
	collect slurm "$TMP/$1.$3.sacct" >"$RES/$1.$3.json"
}
pass_slurm30() { pass_slurm slurm30 30 "$1"; }
pass_slurm1() { pass_slurm slurm1 1 "$1"; }

# ---- the run ----
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "peers: $(nproc) CPUs, load $load_start; $TRUTH_RUNS truth passes, $PAIRS pairs per collector ($COLLECTORS)" >&2
for i in $(seq 1 "$TRUTH_RUNS"); do
	echo "peers: truth pass $i/$TRUTH_RUNS" >&2
	pass_truth "$i" || { echo "FAIL: truth pass $i (log: $TMP/pipeline.log)"; tail -n 20 "$TMP/pipeline.log"; exit 1; }
done
rc=0
for c in tracer slurm30 slurm1 snakemake psutil500 psutil5s procexp pidstat acct; do
	case " $COLLECTORS " in *" $c "*) ;; *) echo "not in PEERS_COLLECTORS" >"$RES/$c.skip" ;; esac
done
# rounds LIST: PAIRS rounds over the collectors of LIST, the order
# reversed every other round
rounds() {
	local i k c order
	for i in $(seq 1 "$PAIRS"); do
		order=$1
		[ $((i % 2)) = 0 ] && order=$(echo "$1" | tr ' ' '\n' | tac | tr '\n' ' ')
		k=0
		for c in $order; do
			k=$((k + 1))
			[ -e "$RES/$c.skip" ] && continue
			echo "peers: pair $i/$PAIRS: $c (load $(cut -d' ' -f1 /proc/loadavg))" >&2
			# every pass records the wait4 figures of its own processes: a
			# collector is measured against the run it watched
			export PEERS_TRUTH=$TMP/$c.$i.truth
			if [ $(((i + k) % 2)) = 0 ]; then
				pass_none "$c" "$i" && "pass_$c" "$i"
			else
				"pass_$c" "$i" && pass_none "$c" "$i"
			fi || { echo "peers: the $c pass $i failed (log: $TMP/pipeline.log)" >&2; rc=1; }
			[ -e "$RES/$c.$i.json" ] && { collect truth "$PEERS_TRUTH" >"$RES/$c.$i.truth" || rc=1; }
			unset PEERS_TRUTH
		done
	done
}
# the collectors that start services (Slurm, MariaDB, Prometheus) run
# last, together; PEERS_LOCK names a lock file (flock) held only while
# they run, for a machine shared with test suites that start the same
local_list="" svc_list=""
for c in $COLLECTORS; do
	case $c in slurm30 | slurm1 | procexp) svc_list+="$c " ;; *) local_list+="$c " ;; esac
done
rounds "$local_list"
if [ -n "$svc_list" ]; then
	locked=1
	if [ -n "${PEERS_LOCK:-}" ]; then
		echo "peers: waiting for $PEERS_LOCK (at most ${PEERS_LOCK_WAIT:-1800} s)" >&2
		exec 9>>"$PEERS_LOCK" || { echo "FAIL: cannot open the lock $PEERS_LOCK"; exit 1; }
		if ! flock -w "${PEERS_LOCK_WAIT:-1800}" 9; then
			locked=
			for c in $svc_list; do
				echo "the lock $PEERS_LOCK stayed held by other runs for ${PEERS_LOCK_WAIT:-1800} s" >"$RES/$c.skip"
			done
		fi
	fi
	[ -n "$locked" ] && rounds "$svc_list"
	[ -n "$SLURM_UP" ] && { cluster_cancel_jobs; cluster_stop; SLURM_UP=; }
	[ -n "${PEERS_LOCK:-}" ] && exec 9>&-
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
"$PY" - "$RES/meta.json" "$load_start" "$load_end" <<'PY'
import json, os, platform, subprocess, sys, time
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
virt = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True).stdout.strip() if os.path.exists("/usr/bin/systemd-detect-virt") else ""
env = " ".join("%s=%s" % (k, os.environ[k]) for k in ("PEERS_PAIRS", "PEERS_TRUTH_RUNS", "PEERS_SCALE", "PEERS_SHORT") if k in os.environ)
json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": "%s%s" % (model, ", virtualization %s" % virt if virt and virt != "none" else ""),
           "cores": os.cpu_count(), "mem": "%.1f GiB" % (mem / 2**20), "kernel": platform.release(),
           "load_start": sys.argv[2], "load_end": sys.argv[3],
           "command": (env + " " if env else "") + "./bench/peers.sh build"}, open(sys.argv[1], "w"))
PY
echo
"$PY" "$TOP/bench/peers_table.py" "$RES" ${DOC:+"$DOC"} || rc=1
exit $rc
