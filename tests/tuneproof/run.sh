#!/bin/bash
# run.sh [BUILD_DIR] - the proof of `tracer tune` on a real pipeline.
#
# Starts a real one-node Slurm cluster with accounting (munge, MariaDB,
# slurmdbd, slurmctld, slurmd: tests/slurm/cluster.sh and accounting.sh)
# that enforces each job's memory (task/cgroup, ConstrainRAMSpace=yes:
# a job past its --mem is OOM-killed and Slurm says OUT_OF_MEMORY), the
# freshly built SPANK plugin and tracerd.  As an unprivileged test user,
# runs a real Snakemake pipeline (Snakefile: simulated reads, bwa index,
# bwa mem, samtools sort and index, gzip, and a python step whose memory
# follows its input) with every rule submitted by sbatch, three times
# over inputs of different sizes; every rule asks for far too much, but
# the python step too little for the largest input, so it is OOM-killed
# there.  Then `tracer tune --format snakemake` writes a profile from
# those runs and a fourth run on another input size uses it.  From Slurm's
# accounting (sacct) and tracer's summaries, compare.py checks that every
# rule of the fourth run completed, that its allocated core-seconds and
# memory GB-seconds are at most half of the first runs' and that the
# OOM-killed rule now asks for more, and prints the table per rule
# (docs/tune.md, "Proof").  Needs root.  Everything started is stopped by pid
# on exit, even on failure.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SLURM_TESTS=$ROOT/tests/slurm
BUILD=$(cd "$ROOT" && realpath -m "${1:-build}")
PLUGIN=$BUILD/spank_tracer.so
TRACERD=$BUILD/tracerd

# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	fail "the tune suite needs root (it runs slurmd, slurmdbd, MariaDB, tracerd)"
	finish
	exit 1
fi

T=$(mktemp -d /tmp/tracer-tuneproof.XXXXXX) || {
	fail "mktemp: cannot create a temporary directory"
	finish
	exit 1
}
chmod 0755 "$T"
TMP=$T
CLUSTER_DIR=$T/cluster
mkdir -p "$CLUSTER_DIR"
SOCK=$T/tracerd.sock
NDJSON=$T/jobs.ndjson
PIN_DIR=/sys/fs/bpf/tracer-tuneproof-$$
TUSER=tracertune
PIPELINE=tunetest
SNAKE_PID=""

# The node is declared with 8 CPUs on whatever this machine has, so that
# a rule can ask for 8 and be cut to 1: a margin that Slurm's whole-second
# elapsed times and a machine shared with other work cannot eat.  Each job
# also runs Snakemake's own ~2 CPU-seconds of Python, which a busy core
# stretches: with 4 CPUs asked, a 2 s job before tuning made any run-4 job
# that one busy core stretched past 4 s fail the halving check.
CLUSTER_NODE_CPUS=8
# a node name of its own: Slurm's cgroups (slurm_NODE/...) are then the
# suite's alone, apart from tests/slurm's node named after the host
CLUSTER_NODES=tuneproof
CLUSTER_TASK_PLUGIN=task/cgroup
CLUSTER_EXTRA_CONF="SlurmdParameters=config_overrides"
ACCT_CONSTRAIN_RAM=yes
CLUSTER_ACCT_USERS="root $TUSER"

# the input of each run (reads of 100 bases, about 211 bytes each in
# FASTQ) and what the rules ask for before tuning: profile holds its
# input 20 times over besides Snakemake's own ~60 MiB in the job, about
# 100, 140, 220 and 180 MiB for these inputs, so 192 MiB is too little
# for run 3 only
RUN_READS=(9000 18000 36000 27000)
THREADS=8
MEM_MB=2000
RUNTIME=60
PROFILE_MEM_MB=192

# shellcheck source=tests/slurm/cluster.sh
. "$SLURM_TESTS/cluster.sh"
# shellcheck source=tests/slurm/accounting.sh
. "$SLURM_TESTS/accounting.sh"
# shellcheck source=tests/slurm/tracerd.sh
. "$SLURM_TESTS/tracerd.sh"

cleanup() {
	stop_tagged "$SNAKE_PID"
	cluster_cancel_jobs
	tracerd_stop
	cluster_stop
	remove_test_users
	[ -d "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	if [ "$FAILED" -eq 0 ]; then
		rm -rf "$T"
	else
		echo "logs kept in $T" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- set-up ----
for p in slurmd slurmctld slurmdbd mariadbd sacct sbatch snakemake bwa samtools gzip runuser; do
	if ! command -v "$p" >/dev/null; then
		fail "$p is missing: install slurm-wlm, slurmdbd, mariadb-server, snakemake, bwa, samtools (scripts/install-deps.sh test)"
		exit 1
	fi
done
if [ ! -d /sys/fs/cgroup/memory ]; then
	fail "no cgroup v1 memory controller at /sys/fs/cgroup/memory: Slurm's task/cgroup (cgroup/v1) cannot enforce --mem here"
	exit 1
fi
for f in "$PLUGIN" "$TRACERD" "$BUILD/tracer"; do
	[ -f "$f" ] || { fail "not built: $f (run make first)"; exit 1; }
done
make_test_users "$TUSER" "$TUSER"
UDIR=$T/$TUSER
# what the user runs, readable by it whoever may read the tree
mapfile -t UFILES < <(user_copy "$PLUGIN" "$BUILD/tracer" "$HERE/Snakefile" \
	"$HERE/pipeline_tools.py" "$HERE/slurm_status.sh")
[ "${#UFILES[@]}" = 5 ] || { fail "cannot copy the pipeline's files to $T/user-files"; exit 1; }
PLUGIN=${UFILES[0]} UTRACER=${UFILES[1]} SNAKEFILE=${UFILES[2]}
UTOOLS=${UFILES[3]} USTATUS=${UFILES[4]}

if ! cluster_start "optional $PLUGIN socket=$SOCK"; then
	fail "the Slurm cluster with accounting did not start (logs in $CLUSTER_DIR)"
	exit 1
fi
pass "Slurm cluster with slurmdbd and task/cgroup up ($(sinfo -h -o '%D node %N, %c CPUs, %m MB'))"
if ! tracerd_start; then
	fail "tracerd did not start (log in $T/tracerd.log)"
	exit 1
fi

# as_user CMD...: run as the test user, in its directory, with a plain
# environment (sbatch passes it on to the jobs: TRACER_PIPELINE and
# TRACER_RUN_ID reach the SPANK plugin that way).  CI=true makes
# Snakemake ask for its cluster jobs' status every second, not every 10 s
# (snakemake/executors: it changes nothing else).
as_user() {
	runuser -u "$TUSER" -- env -i -C "$UDIR" PATH=/usr/bin:/bin HOME="$UDIR" \
		LANG=C.UTF-8 SLURM_CONF="$SLURM_CONF" TRACER_PIPELINE="$PIPELINE" CI=true \
		${TRACER_RUN_ID:+TRACER_RUN_ID=$TRACER_RUN_ID} "$@"
}

SBATCH="sbatch --parsable --job-name={rule} --cpus-per-task={threads} --mem={resources.mem_mb}"
SBATCH="$SBATCH --time={resources.runtime} --output=slurm-{rule}-%j.out"

# run_pipeline N [snakemake options...]: run N of the pipeline in
# $UDIR/runN, its input RUN_READS[N-1] reads; Snakemake's exit status in
# $UDIR/runN.rc, its output in runN.log.  One job at a time: the runs are
# compared by their jobs' elapsed times, which jobs sharing the machine's
# cores would stretch.  timeout bounds the run; the pid is kept for the
# trap (runuser passes SIGTERM on).
run_pipeline() {
	local n=$1 rc
	shift
	install -d -m 0700 -o "$TUSER" -g "$TUSER" "$UDIR/run$n"
	TRACER_RUN_ID=$PIPELINE-run$n as_user timeout -k 10 600 snakemake -s "$SNAKEFILE" -d "$UDIR/run$n" \
		--config reads="${RUN_READS[$((n - 1))]}" tools="$UTOOLS" threads=$THREADS \
		mem_mb=$MEM_MB runtime=$RUNTIME profile_mem_mb=$PROFILE_MEM_MB \
		--cluster "$SBATCH" --cluster-status "$USTATUS" --cluster-cancel scancel \
		--jobs 1 --keep-going --latency-wait 30 --max-status-checks-per-second 5 \
		"$@" >"$UDIR/run$n.log" 2>&1 &
	SNAKE_PID=$(proc_tag $!)
	wait "${SNAKE_PID%%:*}"
	rc=$?
	SNAKE_PID=""
	echo "$rc" >"$UDIR/run$n.rc"
	echo "run $n: ${RUN_READS[$((n - 1))]} reads, snakemake exit $rc"
}

SACCT_FMT=JobIDRaw,JobName,State,AllocCPUS,AllocTRES,ElapsedRaw,TimelimitRaw
# every job so far ended in sacct and has its summary (N jobs at least)
jobs_recorded() {
	sacct -X -n -P -u "$TUSER" --format=$SACCT_FMT >"$T/sacct.txt" 2>&1 &&
		python3 "$HERE/compare.py" ready "$T/sacct.txt" "$NDJSON" "$1"
}
NRULES=$(grep -c '^rule ' "$HERE/Snakefile")
NRULES=$((NRULES - 1)) # all runs in Snakemake itself (localrules)

# ---- runs 1-3, then tune, then run 4 ----
for n in 1 2 3; do run_pipeline $n; done
if [ "$(cat "$UDIR/run1.rc"):$(cat "$UDIR/run2.rc")" = 0:0 ]; then
	pass "runs 1 and 2 of the pipeline succeeded"
else
	fail "runs 1 and 2 of the pipeline: snakemake exit $(cat "$UDIR/run1.rc") and $(cat "$UDIR/run2.rc") (logs in $UDIR)"
fi
if [ "$(cat "$UDIR/run3.rc")" != 0 ] && grep -q "Error in rule profile" "$UDIR/run3.log"; then
	pass "run 3 failed in rule profile (too little memory) and went on (--keep-going)"
else
	fail "run 3 did not fail in rule profile: snakemake exit $(cat "$UDIR/run3.rc") ($UDIR/run3.log)"
fi
wait_until 60 "sacct and tracerd to have every job of runs 1-3" jobs_recorded $((3 * NRULES)) || exit 1

# the user's own tune, through tracerd: the profile and, for the table,
# the same steps as JSON
if tune_out=$(as_user "$UTRACER" -o socket="$SOCK" tune --pipeline "$PIPELINE" \
	--format snakemake -o "$UDIR/profile/config.yaml" 2>&1) &&
	[ -s "$UDIR/profile/config.yaml" ]; then
	pass "tracer tune --pipeline $PIPELINE --format snakemake wrote a profile"
	sed 's/^/    /' "$UDIR/profile/config.yaml"
else
	fail "tracer tune --format snakemake: $tune_out"
	exit 1
fi
as_user "$UTRACER" -o socket="$SOCK" tune --pipeline "$PIPELINE" --format json \
	-o "$UDIR/tune.json" >"$T/tune-json.err" 2>&1 ||
	fail "tracer tune --format json: $(head -c 300 "$T/tune-json.err")"

run_pipeline 4 --profile "$UDIR/profile"
if [ "$(cat "$UDIR/run4.rc")" = 0 ]; then
	pass "run 4 (tuned profile, another input size) succeeded"
else
	fail "run 4 with the tuned profile: snakemake exit $(cat "$UDIR/run4.rc") ($UDIR/run4.log)"
fi
wait_until 60 "sacct and tracerd to have every job of run 4" jobs_recorded $((4 * NRULES)) || exit 1

# ---- before and after ----
sizes=""
for n in 1 2 3 4; do sizes="$sizes${sizes:+,}$(stat -c %s "$UDIR/run$n/reads.fq")"; done
checker_results compare.py < <(python3 "$HERE/compare.py" check "$T/sacct.txt" "$NDJSON" "$UDIR/profile/config.yaml" \
	"$UDIR/tune.json" "$sizes" profile 2>&1)

# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min $((4 * NRULES)) $(summary_files "$T")
finish
