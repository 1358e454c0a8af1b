#!/bin/bash
# run.sh [BUILD_DIR] - tracer's job numbers against Slurm accounting.
#
# Starts a real Slurm cluster of two nodes on this machine (two slurmds,
# tn1 and tn2, tests/slurm/cluster.sh) with accounting (MariaDB and
# slurmdbd, jobacct_gather/cgroup: tests/slurm/accounting.sh), tracerd
# with a file and a clickhouse sink and the freshly built SPANK plugin; submits with sbatch
# a one-step job, a job of several srun steps, an array of 3 tasks, a
# two-node job and a job whose step fails, each burning real CPU for a few
# seconds; waits until sacct has them finished and tracerd has written
# every summary; then compares tracer's job-level numbers with sacct's
# (compare.py says how), checks the scheduler facts tracerd took from
# squeue and that it asked squeue once per job, whatever its steps; and
# the cluster view through ClickHouse and a reader (lake.sh: a two-node
# job of user nobody).  One cluster start for everything.  Needs root
# and the services lock.  Everything started is stopped by pid on exit,
# even on failure.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SLURM_TESTS=$ROOT/tests/slurm
BUILD=$(cd "$ROOT" && realpath -m "${1:-build}")
PLUGIN=$BUILD/spank_tracer.so
TRACERD=$BUILD/tracerd
JSUM="python3 $SLURM_TESTS/jsum.py"

# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"

expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi
}

need_root "it runs slurmd, slurmdbd, MariaDB"
suite_tmp slurmacct
T=$TMP
CLUSTER_DIR=$T/cluster
mkdir -p "$CLUSTER_DIR"
SOCK=$T/tracerd.sock
NDJSON=$T/jobs.ndjson
PIN_DIR=/sys/fs/bpf/tracer-slurmacct-$$
CLUSTER_NODES="tn1 tn2"
CLUSTER_ACCT_USERS="root nobody"

# shellcheck source=tests/slurm/cluster.sh
. "$SLURM_TESTS/cluster.sh"
# shellcheck source=tests/slurm/accounting.sh
. "$SLURM_TESTS/accounting.sh"
# shellcheck source=tests/slurm/tracerd.sh
. "$SLURM_TESTS/tracerd.sh"
# shellcheck source=tests/slurmacct/lake.sh
. "$HERE/lake.sh"

cleanup() {
	cluster_cancel_jobs
	lake_stop
	tracerd_stop
	cluster_stop
	[ -d "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	remove_suite_tmp
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- set-up ----
need_commands slurmd slurmctld slurmdbd mariadbd sacct sbatch
need_built "$PLUGIN" "$TRACERD" tracer
PLUGIN=$(user_copy "$PLUGIN") || { fail "cannot copy the plugin to $T"; exit 1; }
if ! cluster_start "optional $PLUGIN socket=$SOCK"; then
	fail "the Slurm cluster with accounting did not start (logs in $CLUSTER_DIR)"
	exit 1
fi
pass "two-node Slurm cluster with slurmdbd up ($(sinfo -h -o '%D nodes %N'), database $ACCT_DB)"
lake_setup || exit 1
if ! tracerd_start; then
	fail "tracerd did not start (log in $T/tracerd.log)"
	exit 1
fi
export SLURM_TIME_FORMAT=%s

# A CPU-bound loop of $1 seconds, without forks (bash's SECONDS: between
# $1 - 1 and $1 seconds, so $1 >= 2; 2% of the CPU time must stay well
# above the few milliseconds tracer and sacct may differ by).
cat >"$T/busy.sh" <<'EOF'
#!/bin/bash
end=$((SECONDS + $1))
while [ "$SECONDS" -lt "$end" ]; do :; done
exit "${2:-0}"
EOF
chmod 0755 "$T/busy.sh"
B=$T/busy.sh

# slurm facts counters of tracer status: "squeue_calls steps"
squeue_counts() {
	"$BUILD/tracer" -o socket="$SOCK" status --json |
		python3 -c 'import json,sys; s=json.load(sys.stdin)["slurm"]; print(s["squeue_calls"], s["squeue_failed"], s["steps"])'
}
read -r calls0 failed0 steps0 <<<"$(squeue_counts)"

# ---- the jobs ----
sb() { sbatch --parsable -o "$T/%x-%j.out" "$@"; }
J1=$(sb -J one -c1 -A tracertest --wrap "$B 3")
J2=$(sb -J steps -c1 --wrap "srun $B 2; srun $B 2; srun $B 2")
J3=$(sb -J arr -c1 --array=0-2 --wrap "$B 3")
J4=$(sb -J twonode -N2 -c1 --wrap "srun -N2 $B 3")
J5=$(sb -J failing -c1 --wrap "srun $B 3 1")
lake_submit
for j in "$J1" "$J2" "$J3" "$J4" "$J5"; do
	case $j in
	[0-9]*) ;;
	*) fail "sbatch gave no job id ('$j'): $(tail -n 5 "$CLUSTER_DIR/log/slurmctld.log")"; exit 1 ;;
	esac
done

# every job of the suite ended in sacct (not PENDING/RUNNING/COMPLETING)
all_ended() {
	s=$(sacct -n -X -P -j "$J1,$J2,$J3,$J4,$J5" --format=JobID,State)
	echo "$s"
	[ "$(echo "$s" | grep -c .)" -ge 7 ] &&
		! echo "$s" | grep -Eq '\|(PENDING|RUNNING|COMPLETING|REQUEUED|RESIZING|SUSPENDED)'
}
wait_until 180 "sacct to show every job of the suite finished" all_ended || exit 1

# Array tasks' own job ids (JobIDRaw) and the array's task ids.
ARRAY_IDS=$(sacct -n -X -P -j "$J3" --format=JobIDRaw,JobID | sort -t'|' -k2)
TASK_IDS=$(echo "$ARRAY_IDS" | cut -d'|' -f1 | tr '\n' ' ')
expect "array of 3: three tasks in sacct" "$(echo "$TASK_IDS" | wc -w)" 3

# summaries: batch + steps (x nodes) of each job, every job closed
no_open() {
	c=$("$BUILD/tracer" -o socket="$SOCK" status --json | $JSUM - open scheduler=slurm) && [ "$c" = 0 ]
}
want_sums() { # JOBID N
	wait_until 60 "$2 summaries of job $1" $JSUM "$NDJSON" has "$2" job_id="$1"
}
want_sums "$J1" 1
want_sums "$J2" 4
for t in $TASK_IDS; do want_sums "$t" 1; done
want_sums "$J4" 3
want_sums "$J5" 2
wait_until 30 "tracerd to close every Slurm job" no_open

# ---- tracer against sacct ----
compare() { # JOBIDRAW
	sacct -n -P -j "$1" --format=JobIDRaw,JobID,State,AllocCPUS,ElapsedRaw,TotalCPU,NNodes,Submit,Start \
		>"$T/sacct-$1.txt"
	if ! "$BUILD/tracer" -o socket="$SOCK" -o file="$NDJSON" show "$1" --json >"$T/view-$1.json"; then
		fail "tracer show $1 --json: $(head -c 300 "$T/view-$1.json")"
		return
	fi
	while IFS= read -r line; do
		case $line in
		ok\|*) pass "${line#ok|}" ;;
		bad\|*) fail "${line#bad|}" ;;
		*) fail "compare.py: $line" ;;
		esac
	done < <(python3 "$HERE/compare.py" "$NDJSON" "$T/sacct-$1.txt" "$1" "$T/view-$1.json" 2>&1)
}
for j in "$J1" "$J2" $TASK_IDS "$J4" "$J5"; do compare "$j"; done
expect "failing step: FAILED in sacct" \
	"$(sacct -n -X -P -j "$J5" --format=State | cut -d' ' -f1)" FAILED
expect "failing step: its step summary FAILED too" "$(python3 "$SLURM_TESTS/jsum.py" "$NDJSON" get state job_id="$J5" step_id=0)" FAILED

# ---- scheduler facts and the two nodes ----
expect "account from squeue" "$($JSUM "$NDJSON" get identity.account job_id="$J1")" tracertest
expect "QOS from squeue" "$($JSUM "$NDJSON" get identity.qos job_id="$J1")" normal
expect "partition" "$($JSUM "$NDJSON" get identity.queue job_id="$J1")" debug
expect "two-node job: node list" "$($JSUM "$NDJSON" values identity.node_list job_id="$J4")" "tn[1-2] tn[1-2] tn[1-2]"
expect "two-node job: its step's summaries carry each node's Slurm name" \
	"$($JSUM "$NDJSON" values identity.node_name job_id="$J4" step_id=0)" "tn1 tn2"
expect "two-node job: the batch step on the job's first node" \
	"$($JSUM "$NDJSON" get identity.node_name job_id="$J4" step_id=batch)" tn1
expect "two-node job: request.nodes" "$($JSUM "$NDJSON" get identity.request.nodes job_id="$J4" step_id=batch)" 2
want_idx=""
for t in $TASK_IDS; do
	want_idx="$want_idx$($JSUM "$NDJSON" get identity.array_job_id job_id="$t"):$($JSUM "$NDJSON" get identity.array_index job_id="$t") "
done
expect "array tasks: array job id and task ids" "$want_idx" "$J3:0 $J3:1 $J3:2 "

# ---- the same jobs through the datalake and a reader ----
lake_checks

# ---- one squeue per Slurm job, whatever its steps ----
read -r calls1 failed1 steps1 <<<"$(squeue_counts)"
njobs=$((4 + $(echo "$TASK_IDS" | wc -w)))
[ -z "${LJ:-}" ] || njobs=$((njobs + 1)) # lake.sh's job
expect "squeue asked once per job ($njobs jobs, $((steps1 - steps0)) steps)" \
	"$((calls1 - calls0)) calls, $((failed1 - failed0)) failed" "$njobs calls, 0 failed"

# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 13 $(summary_files "$T")
finish
