#!/bin/bash
# run.sh BUILD - the second run on AWS Batch: a pipeline of real tools
# (python, bwa, samtools, gzip) run as AWS Batch jobs would be, each step
# a job under tracer-wrap in standalone mode (no tracerd: Fargate), as
# PID 1 of its own pid namespace inside a cgroup whose CPU quota and
# memory limit are the job's vCPUs and MiB, with ECS task metadata v4
# played by the wrapper tests' loopback server (the same limits, the job
# definition as the tracer.task tag).  Three runs over three input
# sizes, `tracer tune --format aws-batch` on their summaries, a fourth
# run with each job's size taken from its overrides; the fourth run must
# complete, hold at most half of what the first three held per step,
# and give the step OOM-killed before more memory (compare.py).
# Needs root (cgroups, pid namespaces); no Slurm, no tracerd.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
. "$TOP/tests/lib.sh"
HERE=$TOP/tests/tuneaws
need_root "cgroups, pid namespaces"
need_built tracer-wrap tracer
need_commands python3 bwa samtools gzip unshare timeout
ls /usr/lib/python3/dist-packages/botocore/data/batch/*/service-2.json >/dev/null 2>&1 ||
	{ echo "FAIL: botocore's AWS Batch model is not installed (python3-botocore)"; exit 1; }
suite_tmp tuneaws

PIPELINE=awstune
OOM_STEP=profile
READS=(9000 18000 36000 27000) # runs 1-4: the inputs' sizes
# what each job definition asks before tuning: far too much, except
# profile, too little memory for the largest input
VCPUS_BEFORE=8 MIB_BEFORE=2048 PROFILE_MIB_BEFORE=128 TIMEOUT_BEFORE=3600
STEPS=(simulate bwa_index bwa_mem sort index compress profile)
ARCHIVE=$TMP/archive/summaries.ndjson # the file sink on the shared volume
JOBS=$TMP/jobs.tsv                     # run step job vcpus mib rc oom_kills
META_DIR=$TMP/meta
META_PID=
CG_DIRS=() # the jobs' cgroup directories while they exist
CG_TOPS=() # the suite's parent cgroups

cleanup() {
	local d
	[ -n "$META_PID" ] && { kill -TERM "$META_PID" 2>/dev/null; wait "$META_PID" 2>/dev/null; }
	for d in "${CG_DIRS[@]}" "${CG_TOPS[@]}"; do rmdir "$d" 2>/dev/null; done
	remove_suite_tmp
}
trap cleanup EXIT
# the suite must not see the machine's own settings or metadata
unset ECS_CONTAINER_METADATA_URI_V4 AWS_EC2_METADATA_SERVICE_ENDPOINT TRACER_OPTIONS \
	TRACER_CONFIG TRACER_RUN_ID TRACER_RUN_NAME TRACER_PIPELINE
for v in $(env | sed -n 's/^\(AWS_BATCH_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
cp "$TOP/tests/tuneproof/pipeline_tools.py" "$TMP/pipeline_tools.py" || { echo "FAIL: cannot copy pipeline_tools.py"; exit 1; }
TOOLS=$TMP/pipeline_tools.py
mkdir -p "$TMP/archive" "$META_DIR"

# ---- cgroups: v2 where it has the memory and cpu controllers, else v1 ----
CG_MODE=
if [ -f /sys/fs/cgroup/cgroup.controllers ] &&
	grep -qw memory /sys/fs/cgroup/cgroup.controllers && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
	CG_MODE=v2
	CG_MEM=/sys/fs/cgroup/tracer-tuneaws-$$ CG_CPU=$CG_MEM
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control ||
		echo "+memory +cpu" >/sys/fs/cgroup/cgroup.subtree_control ||
		{ echo "FAIL: cannot enable the memory and cpu controllers below /sys/fs/cgroup"; exit 1; }
	mkdir "$CG_MEM" || { echo "FAIL: cannot make the cgroup $CG_MEM"; exit 1; }
	CG_TOPS=("$CG_MEM")
	echo "+memory +cpu" >"$CG_MEM/cgroup.subtree_control" ||
		{ echo "FAIL: cannot enable memory and cpu in $CG_MEM"; exit 1; }
else
	cpu_root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -d /sys/fs/cgroup/memory ] && [ -n "$cpu_root" ]; then
		CG_MODE=v1
		CG_MEM=/sys/fs/cgroup/memory/tracer-tuneaws-$$ CG_CPU=$cpu_root/tracer-tuneaws-$$
		mkdir "$CG_MEM" && CG_TOPS=("$CG_MEM") || { echo "FAIL: cannot make the cgroup $CG_MEM"; exit 1; }
		mkdir "$CG_CPU" && CG_TOPS=("$CG_MEM" "$CG_CPU") || { echo "FAIL: cannot make the cgroup $CG_CPU"; exit 1; }
	fi
fi
[ -n "$CG_MODE" ] || { echo "FAIL: neither cgroup v2 with memory and cpu nor the v1 memory and cpu controllers"; exit 1; }
echo "cgroups: $CG_MODE ($CG_MEM${CG_CPU:+, $CG_CPU})"

# job_cgroup NAME VCPUS MIB: the job's cgroup with its limits, as the
# container runtime makes it (no swap: ECS gives the container none)
job_cgroup() {
	local vcpus=$2 mib=$3 m=$CG_MEM/$1 c=$CG_CPU/$1
	if [ "$CG_MODE" = v2 ]; then
		mkdir "$m" && CG_DIRS+=("$m") &&
			echo "$((vcpus * 100000)) 100000" >"$m/cpu.max" &&
			echo $((mib << 20)) >"$m/memory.max" &&
			{ [ ! -f "$m/memory.swap.max" ] || echo 0 >"$m/memory.swap.max"; }
	else
		mkdir "$m" && CG_DIRS+=("$m") && mkdir "$c" && CG_DIRS+=("$c") &&
			echo 100000 >"$c/cpu.cfs_period_us" &&
			echo $((vcpus * 100000)) >"$c/cpu.cfs_quota_us" &&
			echo $((mib << 20)) >"$m/memory.limit_in_bytes" &&
			{ [ ! -f "$m/memory.memsw.limit_in_bytes" ] ||
				echo $((mib << 20)) >"$m/memory.memsw.limit_in_bytes"; }
	fi
}
# oom_kills NAME: the OOM kills in the job's cgroup (v2 memory.events,
# v1 memory.oom_control)
oom_kills() {
	if [ "$CG_MODE" = v2 ]; then
		awk '$1 == "oom_kill" { print $2 }' "$CG_MEM/$1/memory.events"
	else
		awk '$1 == "oom_kill" { print $2 }' "$CG_MEM/$1/memory.oom_control"
	fi
}
cgroup_empty() { [ ! -s "$CG_MEM/$1/cgroup.procs" ] && [ ! -s "$CG_CPU/$1/cgroup.procs" ]; }
remove_cgroup() {
	rmdir "$CG_MEM/$1" && { [ "$CG_MODE" = v2 ] || rmdir "$CG_CPU/$1"; }
}

# ---- ECS task metadata v4 on loopback: one container per job ----
python3 "$TOP/tests/wrapper/metaserver.py" "$TMP/meta.port" "$TMP/meta.log" jobs 3600 "$META_DIR" &
META_PID=$!
wait_until 60 "the metadata server to listen (file $TMP/meta.port)" test -s "$TMP/meta.port" || { finish; exit 1; }
PORT=$(cat "$TMP/meta.port")

# job RUN STEP VCPUS MIB TIMEOUT_S -- COMMAND...: one AWS Batch job of
# job definition STEP: its ECS metadata, its cgroup, tracer-wrap as PID 1
# of its own pid namespace in it (the container's entrypoint), stopped
# after TIMEOUT_S as Batch stops a job past attemptDurationSeconds
# (SIGTERM, then SIGKILL).  Runs in the run's shared directory.
job() {
	local run=$1 step=$2 vcpus=$3 mib=$4 tmo=$5 id rc cg kills
	shift 6
	id=$(cat /proc/sys/kernel/random/uuid)
	cg=job-$id
	python3 -c 'import json, sys; json.dump({"vcpus": int(sys.argv[2]), "memory_mib": int(sys.argv[3]),
		"family": sys.argv[4], "tags": {"tracer.task": sys.argv[4]}}, open(sys.argv[1], "w"))' \
		"$META_DIR/$id.json" "$vcpus" "$mib" "$step" || { fail "run $run $step: no job metadata"; return 1; }
	job_cgroup "$cg" "$vcpus" "$mib" || { fail "run $run $step: cannot make the job's cgroup $cg"; return 1; }
	(cd "$TMP/run$run" && exec /bin/sh -c 'echo $$ >"$0/cgroup.procs" && echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
		"$CG_MEM/$cg" "$CG_CPU/$cg" \
		env AWS_BATCH_JOB_ID="$id" AWS_BATCH_JOB_ATTEMPT=1 AWS_BATCH_JQ_NAME=genomics \
		AWS_BATCH_CE_NAME=fargate-ce ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:$PORT/v4/$id" \
		TRACER_PIPELINE=$PIPELINE TRACER_RUN_ID=$PIPELINE-run$run \
		timeout -s TERM -k 30 "$tmo" unshare --pid --fork --mount-proc \
		"$BUILD/tracer-wrap" --standalone -o sinks=file -o file="$ARCHIVE" -o advice_min_runtime_s=0 \
		-- "$@") >>"$TMP/run$run.log" 2>&1
	rc=$?
	kills=$(oom_kills "$cg")
	# every process of the container has exited with its init
	wait_until 10 "run $run $step: the job's cgroup to be empty" cgroup_empty "$cg"
	remove_cgroup "$cg" || fail "run $run $step: cannot remove the cgroup $cg"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$step" "$id" "$vcpus" "$mib" "$rc" "${kills:-none}" >>"$JOBS"
	echo "  run $run: $step ($vcpus vCPU, $mib MiB, ${tmo}s): exit $rc, cgroup OOM kills ${kills:-none}"
}

# size STEP RUN: the job definition's size in run RUN, "VCPUS MIB TIMEOUT"
size() {
	if [ "$2" -lt 4 ]; then
		echo "$VCPUS_BEFORE $([ "$1" = "$OOM_STEP" ] && echo $PROFILE_MIB_BEFORE || echo $MIB_BEFORE) $TIMEOUT_BEFORE"
	else
		python3 "$HERE/compare.py" size "$TMP/aws.json" "$1"
	fi
}

# pipeline RUN: every step, one job after another (the next one's input
# is the last one's output, on the shared volume)
pipeline() {
	local run=$1 s
	mkdir -p "$TMP/run$run"
	echo "== run $run: ${READS[$((run - 1))]} reads"
	for s in "${STEPS[@]}"; do
		read -r vc mb tmo <<<"$(size "$s" "$run")" || true
		if [ -z "${tmo:-}" ]; then
			fail "run $run: no size for $s in the overrides"
			continue
		fi
		case $s in
		simulate) job "$run" "$s" "$vc" "$mb" "$tmo" -- python3 "$TOOLS" simulate ref.fa reads.fq "${READS[$((run - 1))]}" ;;
		bwa_index) job "$run" "$s" "$vc" "$mb" "$tmo" -- bwa index ref.fa ;;
		bwa_mem) job "$run" "$s" "$vc" "$mb" "$tmo" -- sh -c 'exec bwa mem -t 1 ref.fa reads.fq >aln.sam' ;;
		sort) job "$run" "$s" "$vc" "$mb" "$tmo" -- samtools sort -o aln.bam aln.sam ;;
		index) job "$run" "$s" "$vc" "$mb" "$tmo" -- samtools index aln.bam ;;
		compress) job "$run" "$s" "$vc" "$mb" "$tmo" -- sh -c 'exec gzip -c reads.fq >reads.fq.gz' ;;
		profile) job "$run" "$s" "$vc" "$mb" "$tmo" -- python3 "$TOOLS" profile reads.fq profile.txt ;;
		esac
	done
}

for run in 1 2 3; do pipeline $run; done
check "tracer tune --pipeline $PIPELINE --format aws-batch -o FILE (the archive)" \
	"$BUILD/tracer" -o file="$ARCHIVE" -o datalake=none tune --pipeline $PIPELINE --format aws-batch -o "$TMP/aws.json"
check "tracer tune --format json (the same selection)" \
	"$BUILD/tracer" -o file="$ARCHIVE" -o datalake=none tune --pipeline $PIPELINE --format json -o "$TMP/tune.json"
check "the overrides are AWS Batch SubmitJob requests (botocore's model)" \
	python3 "$TOP/tests/tune/awsshape.py" "$TMP/aws.json"
pipeline 4

sizes=
for run in 1 2 3 4; do sizes+=${sizes:+,}$(stat -c %s "$TMP/run$run/reads.fq" 2>/dev/null || echo 0); done
python3 "$HERE/compare.py" check "$JOBS" "$ARCHIVE" "$TMP/aws.json" "$TMP/tune.json" "$sizes" "$OOM_STEP" \
	>"$TMP/compare.out" 2>&1
checker_results compare.py <"$TMP/compare.out"
# each job's own recommendation against tune over that job alone: one
# memory request, whoever computes it
check "tracer tune --run $PIPELINE-run4 --format json (each step: run 4's job alone)" \
	"$BUILD/tracer" -o file="$ARCHIVE" -o datalake=none tune --run $PIPELINE-run4 --format json -o "$TMP/tune4.json"
python3 "$HERE/compare.py" agree "$ARCHIVE" "$TMP/tune4.json" "$PIPELINE-run4" >"$TMP/agree.out" 2>&1
checker_results "compare.py agree" <"$TMP/agree.out"
validate_summaries "every summary is valid against docs/summary.schema.json" --min 28 "$ARCHIVE"
finish
