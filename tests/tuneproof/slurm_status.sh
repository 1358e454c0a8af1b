#!/bin/sh
# slurm_status.sh JOBID - Snakemake's --cluster-status for tests/tuneproof: the
# state of a Slurm job as Snakemake wants it (success, failed, running),
# from Slurm's accounting (sacct), so that a job killed by Slurm (OOM,
# time limit) counts as failed whatever its script managed to write.
# JOBID is what `sbatch --parsable` printed ("ID" or "ID;CLUSTER").
id=${1%%;*}
state=$(sacct -n -X -P -j "$id" --format=State 2>/dev/null | head -n 1)
case $state in
COMPLETED) echo success ;;
"" | PENDING | RUNNING | COMPLETING | CONFIGURING | SUSPENDED | REQUEUED* | RESIZING | STAGE_OUT | SIGNALING)
	echo running ;;
*) echo failed ;;
esac
