# cluster.sh - a real single-node Slurm cluster in a temporary directory:
# munge with a key of its own, slurmctld and slurmd on loopback, the
# plugin under test in plugstack.conf.  Sourced by run.sh (and by
# bench/slurm_latency.sh); every daemon started here is recorded in
# CLUSTER_PIDS and stopped by cluster_stop.
#
# Needs: CLUSTER_DIR (empty temporary directory), poll_until
# (tests/lib.sh); plugstack_for also PLUGIN, PLUGSTACK_LINE and T (the
# caller's temporary directory).  Sets SLURM_CONF.
#
# Two nodes on one machine (CLUSTER_NODES="tn1 tn2"): Debian's Slurm 22.05
# is built with multiple-slurmd support, so each node is a slurmd of its
# own (`slurmd -N tn1`) with its own port, spool directory, pid and log
# file (%n in slurm.conf), all on this host and its one tracerd; the node
# name tells the two apart in the summaries (identity.node_name, which
# tracerd takes from the step's node index, S_JOB_NODEID, in the job's
# node list as squeue gives it).  `slurmd -N` was checked to work here;
# no namespaces are needed.  Without
# CLUSTER_NODES the one node is named after the host.  With ACCT_CONF
# (accounting.sh) slurm.conf gains its accounting lines; CLUSTER_EXTRA_CONF,
# when set, is added to it too.  CLUSTER_NODE_CPUS declares each node with
# that many CPUs instead of nproc (with SlurmdParameters=config_overrides
# in CLUSTER_EXTRA_CONF), CLUSTER_TASK_PLUGIN replaces task/none
# (task/cgroup enforces --mem: tests/tune).
#
# batch_sched_delay=0: slurmctld starts a submitted batch job at the next
# pass of its background loop (within a second), not at its scheduler's
# next 3 s tick (Slurm's default): tuneproof's 28 jobs, submitted one
# after the other, waited up to 2.9 s each (0.75 s on average), now up
# to 1.0 s (0.6 s).

CLUSTER_PIDS=""
CLUSTER_NAME=tracertest
CLUSTER_PARTITION=debug

cluster_log() { echo "cluster: $*" >&2; }

# Install what is missing (Debian/Ubuntu); fail loudly when we cannot.
cluster_install_deps() {
	missing=""
	for p in slurm-wlm munge python3; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	cluster_log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get update -q >/dev/null &&
		apt-get install -y -q --no-install-recommends $missing >/dev/null
}

# A free TCP port on loopback.
cluster_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Start time of process PID (clock ticks since boot), empty when gone:
# with it a pid we started is told from a later process given the same
# pid (pids wrap quickly when other tests fork 100,000s of processes).
proc_start() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# "pid:start" of a process we just started.
proc_tag() {
	echo "$1:$(proc_start "$1")"
}

# alive_ours PID:START - that process is still running.
alive_ours() {
	[ -n "${1#*:}" ] && [ "$(proc_start "${1%%:*}")" = "${1#*:}" ]
}

# kill_ours SIGNAL PID:START - signal it only if it is still ours.
kill_ours() {
	alive_ours "$2" && kill "-$1" "${2%%:*}" 2>/dev/null
}

# Start a daemon in the background, record it (also in SPAWNED, pid:start).
cluster_spawn() {
	log=$1
	shift
	"$@" >"$log" 2>&1 </dev/null &
	SPAWNED=$(proc_tag $!)
	CLUSTER_PIDS="$CLUSTER_PIDS $SPAWNED"
}

munge_up_or_died() { [ -S "$MUNGE_SOCKET" ] || ! alive_ours "$MUNGE_PID"; }

cluster_start_munge() {
	mdir=$CLUSTER_DIR/munge
	mkdir -p "$mdir" && chmod 0755 "$mdir" || return 1
	mungekey --create --keyfile="$mdir/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$mdir/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0400 "$mdir/munge.key"
	MUNGE_SOCKET=$mdir/munge.socket
	cluster_spawn "$mdir/munged.out" munged --foreground --force \
		--key-file="$mdir/munge.key" --socket="$MUNGE_SOCKET" \
		--pid-file="$mdir/munged.pid" --seed-file="$mdir/munged.seed" \
		--log-file="$mdir/munged.log"
	MUNGE_PID=$SPAWNED
	poll_until 10 munge_up_or_died
	[ -S "$MUNGE_SOCKET" ] && alive_ours "$MUNGE_PID" && return 0
	cluster_log "munged did not start within 10 s:"
	cat "$mdir/munged.out" "$mdir/munged.log" >&2 2>/dev/null
	return 1
}

# plugstack.conf is re-read at every job launch: tests rewrite it freely.
cluster_set_plugstack() {
	printf '%s\n' "$@" >"$CLUSTER_DIR/plugstack.conf"
}

cluster_write_conf() {
	host=$(hostname)
	cpus=${CLUSTER_NODE_CPUS:-$(nproc)}
	mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	ctld_port=$(cluster_free_port)
	slurmd_port=$(cluster_free_port)
	nodes=${CLUSTER_NODES:-$host}
	per=""
	[ "$nodes" = "$host" ] || per=-%n # one spool, pid and log per slurmd
	mkdir -p "$CLUSTER_DIR/state" "$CLUSTER_DIR/spool" "$CLUSTER_DIR/log"
	cat >"$CLUSTER_DIR/slurm.conf" <<EOF
ClusterName=$CLUSTER_NAME
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool$per
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd$per.pid
SlurmctldLogFile=$CLUSTER_DIR/log/slurmctld.log
SlurmdLogFile=$CLUSTER_DIR/log/slurmd$per.log
SlurmdDebug=debug
PlugStackConfig=$CLUSTER_DIR/plugstack.conf
TaskPlugin=${CLUSTER_TASK_PLUGIN:-task/none}
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
MpiDefault=none
${ACCT_CONF:-ProctrackType=proctrack/linuxproc
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none}
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
KillWait=5
MinJobAge=600
InactiveLimit=0
Waittime=0
${CLUSTER_EXTRA_CONF:-}
EOF
	for n in $nodes; do
		[ "$n" = "$host" ] && p=$slurmd_port || p=$(cluster_free_port)
		echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$p CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN"
	done >>"$CLUSTER_DIR/slurm.conf"
	echo "PartitionName=$CLUSTER_PARTITION Nodes=${nodes// /,} Default=YES MaxTime=INFINITE State=UP" \
		>>"$CLUSTER_DIR/slurm.conf"
	export SLURM_CONF=$CLUSTER_DIR/slurm.conf
	CLUSTER_HOST=$host
	CLUSTER_CPUS=$cpus
	CLUSTER_NODE_LIST=$nodes
}

# Every node of ours is idle.
cluster_node_idle() {
	for n in $CLUSTER_NODE_LIST; do
		state=$(sinfo -h -n "$n" -o %T 2>/dev/null)
		echo "$n: state '$state'"
		case $state in
		idle*) ;;
		*) return 1 ;;
		esac
	done
	return 0
}

# No job left in the queue (running or pending).
cluster_no_jobs() { [ -z "$(squeue -h -o %A 2>/dev/null)" ]; }

# tracer.conf for the node's tracerd at FILE: SOCK, NDJSON, PIN_DIR, and
# the tool rules RULES when that file is there; CLUSTER_TRACERD_SINKS
# (default file) are its sinks.
cluster_tracerd_conf() {
	cat >"$1" <<EOF
socket = $SOCK
sinks = ${CLUSTER_TRACERD_SINKS:-file}
file = $NDJSON
spool_dir = ${NDJSON%.ndjson}.spool
pin_dir = $PIN_DIR
state_dir = $(dirname "$1")/tracerd-state
sample_interval_ms = 200
EOF
	[ -f "$2" ] && echo "rules = $2" >>"$1"
	return 0
}

# cluster_job_ended JOBID: prints the exit status sbatch --wait gives for
# the job once it (every task of an array) has ended, else fails: the
# highest task's exit code, 1 for a task ended by a signal.  A job still
# COMPLETING has not ended here (its steps are not all gone yet).
cluster_job_ended() {
	local out line ec rc=0
	out=$(scontrol -o show job "$1" 2>/dev/null) && [ -n "$out" ] || return 1
	while IFS= read -r line; do
		[[ $line =~ \ JobState=([A-Z_]+) ]] || return 1
		case ${BASH_REMATCH[1]} in
		COMPLETED | CANCELLED | FAILED | TIMEOUT | NODE_FAIL | PREEMPTED | BOOT_FAIL | \
			DEADLINE | OUT_OF_MEMORY) ;;
		*) return 1 ;;
		esac
		[[ $line =~ \ ExitCode=([0-9]+):([0-9]+) ]] || return 1
		ec=${BASH_REMATCH[1]}
		[ "${BASH_REMATCH[2]}" = 0 ] || ec=1
		[ "$ec" -gt "$rc" ] && rc=$ec
	done <<<"$out"
	echo "$rc"
}

# cluster_sbatch_wait SBATCH-OPTION...: `sbatch --parsable --wait`, faster:
# prints the job id, returns once the job has ended, with the exit status
# sbatch --wait would give (cluster_job_ended).  sbatch --wait sleeps 2 s,
# then 8 s, then 32 s between its looks at the job (MinJobAge=600): a job
# of a second took 2 s, one of 3 s took 10 s; this looks every 0.2 s.
# After 300 s it gives up, says so on stderr and returns 1.
cluster_sbatch_wait() {
	local j end
	j=$(sbatch --parsable "$@") || return
	echo "$j"
	j=${j%%;*}
	end=$((SECONDS + 300))
	while [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
		CLUSTER_JOB_RC=$(cluster_job_ended "$j") && return "$CLUSTER_JOB_RC"
	done
	cluster_log "job $j did not end within 300 s"
	return 1
}

# Cancel every job of our cluster (they hold slurmstepd processes) and
# wait for the queue to drain; nothing when the cluster is not up.
cluster_cancel_jobs() {
	[ -n "${SLURM_CONF:-}" ] && [ -n "$CLUSTER_PIDS" ] || return 0
	for j in $(squeue -h -o %A 2>/dev/null); do scancel "$j" 2>/dev/null; done
	poll_until 10 cluster_no_jobs
}

# Stop a process of ours by its proc_tag ("" = nothing to stop).
stop_tagged() {
	[ -n "$1" ] || return 0
	kill_ours TERM "$1"
	wait "${1%%:*}" 2>/dev/null
}

# plugstack.conf for each way tracerd can be absent.
plugstack_for() {
	case $1 in
	none) cluster_set_plugstack "# no plugin" ;;
	live | stopped) cluster_set_plugstack "$PLUGSTACK_LINE" ;;
	stale) cluster_set_plugstack "optional $PLUGIN socket=$T/stale.sock" ;;
	hung) cluster_set_plugstack "optional $PLUGIN socket=$T/hung.sock timeout_ms=200" ;;
	esac
}


cluster_wait_idle() {
	poll_until 30 cluster_node_idle && return 0
	cluster_log "nodes $CLUSTER_NODE_LIST not idle within 30 s ($POLL_OUT)"
	tail -n 20 "$CLUSTER_DIR/log/slurmctld.log" "$CLUSTER_DIR"/log/slurmd*.log >&2
	return 1
}

# cluster_start PLUGSTACK_LINE...: munge, slurmctld, slurmd; node idle.
# With CLUSTER_ACCT_USERS (accounting.sh sourced): MariaDB and slurmdbd
# first, those users registered.
cluster_start() {
	case ${CLUSTER_DIR:-} in
	/?*) [ -d "$CLUSTER_DIR" ] || { cluster_log "no directory $CLUSTER_DIR"; return 1; } ;;
	*) cluster_log "CLUSTER_DIR must be an absolute directory, not '${CLUSTER_DIR:-}'"; return 1 ;;
	esac
	cluster_start_munge || return 1
	if [ -n "${CLUSTER_ACCT_USERS:-}" ]; then
		acct_prepare || return 1
	fi
	cluster_write_conf
	if [ -n "${CLUSTER_ACCT_USERS:-}" ]; then
		# shellcheck disable=SC2086
		acct_start $CLUSTER_ACCT_USERS || return 1
	fi
	cluster_set_plugstack "$@"
	cluster_spawn "$CLUSTER_DIR/log/slurmctld.out" \
		slurmctld -D -i -f "$SLURM_CONF"
	for n in $CLUSTER_NODE_LIST; do
		cluster_spawn "$CLUSTER_DIR/log/slurmd-$n.out" \
			slurmd -D -f "$SLURM_CONF" -N "$n"
	done
	cluster_wait_idle
}

cluster_all_gone() {
	for t in $CLUSTER_STOPPING; do alive_ours "$t" && return 1; done
	return 0
}

# Stop what we started, by pid, newest first; SIGKILL stragglers.
cluster_stop() {
	tags=""
	for t in $CLUSTER_PIDS; do tags="$t $tags"; done
	for t in $tags; do kill_ours TERM "$t"; done
	CLUSTER_STOPPING=$tags
	poll_until 10 cluster_all_gone
	for t in $tags; do kill_ours KILL "$t"; done
	for t in $tags; do wait "${t%%:*}" 2>/dev/null; done
	CLUSTER_PIDS=""
}
