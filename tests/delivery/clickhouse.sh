# clickhouse.sh - a private ClickHouse server for the delivery, datalake,
# reader, sweep, tunelake and report suites and the bench: config, data
# and logs in a root-only directory of the caller's, on loopback ports of
# the caller's, started and stopped by pid.  Users: default (no password)
# and tracer_rw (password ch-s3cret), or the caller's users.xml
# (ch_users_xml writes one with other passwords).
# Sourced; needs tests/lib.sh (poll_until, proc_gone, need_commands).

# ch_users_xml DEFAULT_PW TRACER_RW_PW [PROFILE_SETTINGS]: a users.xml on
# stdout: default (with that password, none when empty) and tracer_rw,
# both from loopback only, PROFILE_SETTINGS (XML) added to their profile
ch_users_xml() {
	cat <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default>${3:-}<max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password>$1</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default>
    <tracer_rw><password>$2</password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></tracer_rw></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
}

# ch_lake_rw PASSWORD: tracer_rw's password in a root-only file,
# $TMP/chpw (tracer.conf's clickhouse_password_file), and LAKE, the -o
# options of a tracer or tracerd that reads the datalake as tracer_rw
ch_lake_rw() {
	(umask 077 && printf '%s\n' "$1" >"$TMP/chpw") || { echo "FAIL: cannot write $TMP/chpw"; exit 1; }
	chmod 0600 "$TMP/chpw" || { echo "FAIL: cannot chmod 0600 $TMP/chpw"; exit 1; }
	LAKE=(-o datalake=clickhouse -o clickhouse_url="http://127.0.0.1:$CH_HTTP/" -o clickhouse_user=tracer_rw
	      -o clickhouse_password_file="$TMP/chpw")
}

# ch_setup DIR TCP_PORT HTTP_PORT: write the configuration (once)
ch_setup() {
	CH_DIR=$1 CH_TCP=$2 CH_HTTP=$3
	# root's alone: the users' passwords are written into it
	install -d -m 0700 "$CH_DIR" || { echo "FAIL: cannot make $CH_DIR"; return 1; }
	mkdir -p "$CH_DIR/data" "$CH_DIR/tmp" "$CH_DIR/log" "$CH_DIR/user_files"
	cat >"$CH_DIR/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$CH_DIR/log/server.log</log><errorlog>$CH_DIR/log/err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>$CH_TCP</tcp_port>
  <http_port>$CH_HTTP</http_port>
  <path>$CH_DIR/data/</path>
  <tmp_path>$CH_DIR/tmp/</tmp_path>
  <user_files_path>$CH_DIR/user_files/</user_files_path>
  <format_schema_path>$CH_DIR/format_schemas/</format_schema_path>
  <users_config>$CH_DIR/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <timezone>UTC</timezone>
</yandex>
XML
	ch_users_xml "" ch-s3cret >"$CH_DIR/users.xml"
}

ch_ping() { curl -sf --max-time 2 "http://127.0.0.1:$CH_HTTP/ping" >/dev/null; }

# ch_start: the server, its pid in CH_PID; 0 once it answers
ch_start() {
	command -v clickhouse-server >/dev/null || { echo "FAIL: clickhouse-server is not installed"; return 1; }
	clickhouse-server --config-file="$CH_DIR/config.xml" >>"$CH_DIR/log/stdout.log" 2>&1 &
	CH_PID=$!
	if poll_until 60 ch_ping; then return 0; fi
	echo "FAIL: clickhouse-server did not answer on port $CH_HTTP within 60 s; its log:"
	tail -n 20 "$CH_DIR/log/err.log" "$CH_DIR/log/stdout.log" 2>/dev/null | sed 's/^/    /'
	ch_stop
	return 1
}

# ch_stop: SIGTERM, SIGKILL after 30 s; by pid
ch_stop() {
	[ -n "${CH_PID:-}" ] || return 0
	kill -TERM "$CH_PID" 2>/dev/null
	poll_until 30 proc_gone "$CH_PID" || kill -KILL "$CH_PID" 2>/dev/null
	wait "$CH_PID" 2>/dev/null
	CH_PID=
}

# chq QUERY...: run queries with clickhouse-client (a suite whose
# default user has a password redefines it)
chq() { clickhouse-client --port "$CH_TCP" --multiquery "$@"; }

# ch_up DIR TCP_PORT HTTP_PORT [USERS_XML]: a suite's own server, up and
# answering, or the suite ends with a FAIL: the commands installed,
# nothing of someone else's already on the ports (it would answer for
# ours), the configuration written (USERS_XML, when given, in place of
# the default users), started
ch_up() {
	need_commands clickhouse-server clickhouse-client curl
	ch_setup "$1" "$2" "$3" || exit 1
	if ch_ping; then echo "FAIL: something already answers on port $CH_HTTP"; exit 1; fi
	if [ -n "${4:-}" ]; then
		cp "$4" "$CH_DIR/users.xml" || { echo "FAIL: cannot copy $4 to $CH_DIR"; exit 1; }
	fi
	ch_start || exit 1
}

# ch_is_debian_1816: the server is Debian's ClickHouse 18.16, the one the
# datalake's SQL is written for (through chq)
ch_is_debian_1816() { chq -q 'SELECT version()' | grep -q '^18\.16\.'; }
