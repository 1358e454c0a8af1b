# accounting.sh - Slurm accounting for the test cluster (cluster.sh):
# MariaDB in a temporary datadir on a loopback port of its own, slurmdbd
# on another, and the cluster, account and users registered with
# sacctmgr, so that sacct answers for the suite's jobs.  Sourced after
# cluster.sh; everything started goes into CLUSTER_PIDS (stopped by pid
# in cluster_stop).
#
# Gathering: jobacct_gather/cgroup with proctrack/cgroup and a cgroup.conf
# of CgroupPlugin=cgroup/v1 (this machine mounts the v1 hierarchies, with
# a v2 "unified" one beside them): Slurm then reads a step's CPU time and
# memory from its own job cgroup, as most sites do.
#
# ACCT_CONSTRAIN_RAM=yes has task/cgroup enforce each job's --mem (an
# OOM kill past it, OUT_OF_MEMORY in sacct: tests/tune); the default "no"
# leaves memory unbounded.
#
# Needs: CLUSTER_DIR, MUNGE_SOCKET (cluster_start_munge) and the
# Debian packages mariadb-server and slurmdbd (RHEL: mariadb-server,
# slurm-slurmdbd).  Sets ACCT_DB (the database name).

ACCT_DB=""

acct_mysql_up() { [ -S "$ACCT_DIR/mysql.sock" ] || ! alive_ours "$ACCT_MYSQL_PID"; }

# MariaDB as root in its own datadir: a socket for set-up, a loopback
# port for slurmdbd, nothing else.
acct_start_mariadb() {
	ACCT_DIR=$CLUSTER_DIR/acct
	mkdir -p "$ACCT_DIR/data" && chmod 0700 "$ACCT_DIR" || return 1
	if ! mariadb-install-db --no-defaults --user=root --datadir="$ACCT_DIR/data" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$ACCT_DIR/install.log" 2>&1; then
		cluster_log "mariadb-install-db failed:"
		tail -n 20 "$ACCT_DIR/install.log" >&2
		return 1
	fi
	ACCT_DB_PORT=$(cluster_free_port)
	cluster_spawn "$ACCT_DIR/mariadbd.out" mariadbd --no-defaults --user=root \
		--datadir="$ACCT_DIR/data" --socket="$ACCT_DIR/mysql.sock" \
		--pid-file="$ACCT_DIR/mariadbd.pid" --bind-address=127.0.0.1 \
		--port="$ACCT_DB_PORT" --log-error="$ACCT_DIR/mariadbd.err" \
		--innodb-buffer-pool-size=32M --skip-name-resolve
	ACCT_MYSQL_PID=$SPAWNED
	poll_until 60 acct_mysql_up
	if ! [ -S "$ACCT_DIR/mysql.sock" ] || ! alive_ours "$ACCT_MYSQL_PID"; then
		cluster_log "mariadbd did not start within 60 s:"
		tail -n 20 "$ACCT_DIR/mariadbd.err" >&2
		return 1
	fi
	ACCT_DB=tracer_acct_$$
	ACCT_DB_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	mariadb --no-defaults --socket="$ACCT_DIR/mysql.sock" -u root <<EOF
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$ACCT_DB_PASS';
GRANT ALL ON \`$ACCT_DB\`.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON \`${ACCT_DB}_%\`.* TO 'slurm'@'127.0.0.1';
EOF
}

acct_dbd_up() { sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1 || ! alive_ours "$ACCT_DBD_PID"; }

acct_start_slurmdbd() {
	# slurmdbd reads slurmdbd.conf beside slurm.conf and refuses one
	# others may read (it holds the database password)
	(umask 077 && cat >"$CLUSTER_DIR/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
DbdHost=$(hostname)
DbdAddr=127.0.0.1
DbdPort=$ACCT_DBD_PORT
SlurmUser=root
PidFile=$ACCT_DIR/slurmdbd.pid
LogFile=$ACCT_DIR/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$ACCT_DB_PORT
StorageUser=slurm
StoragePass=$ACCT_DB_PASS
StorageLoc=$ACCT_DB
EOF
	) || return 1
	cluster_spawn "$ACCT_DIR/slurmdbd.out" slurmdbd -D -s
	ACCT_DBD_PID=$SPAWNED
	poll_until 60 acct_dbd_up
	if ! alive_ours "$ACCT_DBD_PID" ||
		! sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1; then
		cluster_log "slurmdbd did not answer within 60 s:"
		tail -n 20 "$ACCT_DIR/slurmdbd.log" "$ACCT_DIR/slurmdbd.out" >&2
		return 1
	fi
}

# The lines slurm.conf needs for accounting (after slurmdbd is up).
acct_slurm_conf() {
	cat <<EOF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$ACCT_DBD_PORT
AccountingStoragePass=$MUNGE_SOCKET
JobAcctGatherType=jobacct_gather/cgroup
JobAcctGatherFrequency=task=1
ProctrackType=proctrack/cgroup
EOF
}

acct_cgroup_conf() {
	cat >"$CLUSTER_DIR/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainRAMSpace=${ACCT_CONSTRAIN_RAM:-no}
EOF
}

# The cluster, one account and USERS in it: sacct then keeps their jobs.
acct_register() {
	users=$(printf '%s,' "$@")
	if ! { sacctmgr -i add cluster "$CLUSTER_NAME" &&
		sacctmgr -i add account tracertest Description=tracer Organization=tracer &&
		sacctmgr -i add user "${users%,}" Account=tracertest; } >"$ACCT_DIR/sacctmgr.out" 2>&1; then
		cluster_log "sacctmgr could not register the cluster, account and users:"
		tail -n 20 "$ACCT_DIR/sacctmgr.out" >&2
		return 1
	fi
}

# acct_prepare: MariaDB up; ACCT_CONF holds the slurm.conf lines for
# cluster_write_conf, cgroup.conf is written.
acct_prepare() {
	for p in mariadbd mariadb-install-db slurmdbd sacctmgr sacct; do
		command -v "$p" >/dev/null || {
			cluster_log "$p is missing (Debian: mariadb-server, slurmdbd)"
			return 1
		}
	done
	acct_start_mariadb || return 1
	ACCT_DBD_PORT=$(cluster_free_port)
	ACCT_CONF=$(acct_slurm_conf)
	acct_cgroup_conf
}

# acct_start USER... (SLURM_CONF written): slurmdbd up, the cluster, an
# account and the users registered, before slurmctld starts.
acct_start() {
	acct_start_slurmdbd && acct_register "$@"
}
