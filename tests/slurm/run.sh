#!/bin/bash
# run.sh [BUILD_DIR] - the Slurm integration suite.
#
# Starts a real single-node Slurm cluster on this machine (munge,
# slurmctld, slurmd on loopback, configuration in a temporary directory),
# loads the freshly built spank_tracer.so through plugstack.conf, starts
# tracerd with a file sink, runs real jobs through srun and sbatch and
# checks the summaries tracerd writes; then stops tracerd (and plays a
# hung one) to check that jobs are never harmed.  Needs root.  Prints one
# PASS/FAIL line per check and "N passed, M failed"; exits non-zero on any
# failure.  Everything started is stopped by pid on exit, even on failure.
# Start latencies and how soon summaries come are measured by make bench
# (bench/slurm_latency.sh), not asserted here.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "$ROOT" && realpath -m "${1:-build}")
PLUGIN=$BUILD/spank_tracer.so
TRACERD=$BUILD/tracerd
JSUM="python3 $HERE/jsum.py"

# pass, fail, finish, wait_until
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"

# expect DESC ACTUAL EXPECTED
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

# expect_match DESC ACTUAL EXTENDED_REGEX
expect_match() {
	if printf '%s' "$2" | grep -Eq -- "$3"; then
		pass "$1"
	else
		fail "$1: got '$2', want /$3/"
	fi
}

need_root "it runs slurmd and munged"
suite_tmp slurm
T=$TMP
CLUSTER_DIR=$T/cluster
mkdir -p "$CLUSTER_DIR"
SOCK=$T/tracerd.sock
NDJSON=$T/jobs.ndjson
PIN_DIR=/sys/fs/bpf/tracer-slurmtest-$$
TRACERD_PID=""
HANG_PID=""

# shellcheck source=tests/slurm/cluster.sh
. "$HERE/cluster.sh"
# shellcheck source=tests/slurm/checks.sh
. "$HERE/checks.sh"
# shellcheck source=tests/slurm/tracerd.sh
. "$HERE/tracerd.sh"
# shellcheck source=tests/slurm/notify.sh
. "$HERE/notify.sh"

# Jobs first (they hold slurmstepd processes), then our daemons, by pid.
cleanup() {
	cluster_cancel_jobs
	tracerd_stop
	stop_tagged "$HANG_PID"
	cluster_stop
	[ -d "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	remove_suite_tmp
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- set-up ----
if ! cluster_install_deps; then
	fail "cannot install slurm-wlm, munge, python3 (apt-get failed)"
	exit 1
fi
need_built "$PLUGIN"
# srun loads the plugin as the job's user too (nobody below): a copy that
# user can read, whoever may read the tree (user_copy)
PLUGIN=$(user_copy "$PLUGIN") || { fail "cannot copy the plugin to $T"; finish; exit 1; }
PLUGSTACK_LINE="optional $PLUGIN socket=$SOCK"
# slurmctld mails through tracer-mail (notify.sh)
notify_setup || { fail "cannot write the mail helpers in $T"; finish; exit 1; }
CLUSTER_EXTRA_CONF="MailProg=$T/mailprog"
if ! cluster_start "$PLUGSTACK_LINE"; then
	fail "the Slurm cluster did not start (logs in $CLUSTER_DIR)"
	exit 1
fi
pass "single-node Slurm cluster up ($(sinfo -V), node $CLUSTER_HOST, $CLUSTER_CPUS CPUs)"

TRACERD_OK=0
if [ ! -x "$TRACERD" ]; then
	fail "tracerd not built: $TRACERD (run make first)"
elif tracerd_start; then
	TRACERD_OK=1
	pass "tracerd up on $SOCK"
else
	fail "tracerd did not start (log in $T/tracerd.log)"
fi

# ---- with tracerd: summaries ----
# The node has 2 CPUs: the checks that take both (-n2, -c2) or want
# nothing on srun's stderr (a step waiting for a CPU says so there) come
# before time_limit_submit, whose --time=1 job holds one CPU for 60-90 s
# while the others run; check_time_limit comes last.
for c in check_pipeline check_batch check_exit check_bad_args check_idle_allocation \
	time_limit_submit check_array check_runs check_cancel check_off check_other_user \
	check_mail check_mail_scope check_notes check_time_limit; do
	if [ "$TRACERD_OK" = 1 ]; then
		$c
	else
		fail "$c: not run, tracerd is not running"
	fi
done
[ -n "$TRACERD_PID" ] && ! alive_ours "$TRACERD_PID" &&
	fail "tracerd died during the tests (log in $T/tracerd.log)"

# ---- without tracerd: the job must not notice ----
tracerd_stop
check_no_daemon
check_notes_no_daemon
check_mail_no_tracer

# shellcheck disable=SC2046
validate_summaries "every summary of this suite is valid against docs/summary.schema.json" \
	--min 10 $(summary_files "$T")
finish
