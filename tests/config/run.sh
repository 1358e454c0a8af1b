#!/bin/bash
# run.sh BUILD - tracerd's configuration: `tracerd --check-config` (exit
# 0, or 78 with FILE:LINE: KEY: what is wrong, starting nothing), a
# starting tracerd as strict (exit 78, the same lines), and the
# SIGHUP reload (sinks, rules and thresholds change at run time; an
# invalid file keeps the current configuration; a hanging sink does not
# hold the reload or the event loop).  Root (tracerd loads BPF).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-conf.XXXXXX)
. "$TOP/tests/lib.sh"
# this suite's loopback port (a collector that never answers)
HANG_PORT=18170
HTTPD_PID=
cleanup() {
	stop_tracerd
	[ -n "${PROBE_PID:-}" ] && { touch "$TMP/probe.stop"; kill -TERM "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null; }
	if [ -n "$HTTPD_PID" ]; then kill -TERM "$HTTPD_PID" 2>/dev/null; wait "$HTTPD_PID" 2>/dev/null; fi
	if [ -n "${KEEP:-}" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
need_root
[ -x "$BUILD/tracerd" ] && [ -x "$H/tiny" ] || { echo "FAIL: $BUILD/tracerd or $H/tiny missing (make all)"; exit 1; }
for c in python3 ss; do command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }; done

# ---- --check-config ----

# checkconf NAME TEXT [ARGS...]: write $TMP/NAME.conf, run --check-config
# on it; exit status in RC, stderr in ERR, stdout in OUT
checkconf() {
	local name=$1 text=$2
	shift 2
	printf '%s' "$text" >"$TMP/$name.conf"
	OUT=$("$BUILD/tracerd" --check-config -c "$TMP/$name.conf" "$@" 2>"$TMP/$name.err")
	RC=$?
	ERR=$(cat "$TMP/$name.err")
}
# has TEXT: ERR holds TEXT as a whole line
has() { grep -qxF -- "$1" <<<"$ERR"; }

echo "== tracerd --check-config"
checkconf good "socket = $TMP/never.sock
sinks = file,http
http_url = http://127.0.0.1:$HANG_PORT/
argv_max = 512   # a comment
flag_cpu_idle_share = 0.4
"
check "a valid file: exit 0" test "$RC" = 0
check "a valid file: says so on stdout, nothing on stderr" sh -c "[ '$OUT' = '$TMP/good.conf: valid' ] && [ -z '$ERR' ]"
check "nothing started: no socket created" test ! -e "$TMP/never.sock"

checkconf unknown "argv_max = 512
no_such_key = 1
"
check "an unknown key: exit 78 (EX_CONFIG)" test "$RC" = 78
check "an unknown key: FILE:LINE: KEY: what" has "$TMP/unknown.conf:2: no_such_key: unknown key"

checkconf badval "# comment

argv_max = 10
"
check "a bad value: exit 78" test "$RC" = 78
check "a bad value: FILE:LINE: KEY: what" has "$TMP/badval.conf:3: argv_max: 10 out of range (64..$(grep -o 'TRACER_ARGV_MAX [0-9]*' "$TOP/lib/defaults.h" | cut -d' ' -f2))"

checkconf dup "argv_max = 512
log_level = info
argv_max = 256
"
check "a duplicate key: exit 78" test "$RC" = 78
check "a duplicate key: FILE:LINE: KEY: what" has "$TMP/dup.conf:3: argv_max: duplicate key (first set on line 1)"

checkconf many "sinks = file,ftp
sample_interval_ms = fast
trace_all = maybe
"
check "every problem reported, not only the first (3 lines + a count)" \
	sh -c "[ $RC = 78 ] && [ \$(grep -c '^$TMP/many.conf:[123]: ' '$TMP/many.err') = 3 ] && grep -q '3 problems' '$TMP/many.err'"

OUT=$("$BUILD/tracerd" --check-config -c "$TMP/absent.conf" 2>"$TMP/absent.err"); RC=$?; ERR=$(cat "$TMP/absent.err")
check "an unreadable file: exit 78" test "$RC" = 78
check "an unreadable file: FILE: cannot open: reason" has "$TMP/absent.conf: cannot open: No such file or directory"
mkdir "$TMP/dir.conf"
"$BUILD/tracerd" --check-config -c "$TMP/dir.conf" >/dev/null 2>&1
check "a directory is unreadable too: exit 78" test $? = 78

checkconf needsurl "sinks = file,http
"
check "sink http without http_url: exit 78" test "$RC" = 78
check "sink http without http_url: said" has "$TMP/needsurl.conf: http_url: empty, but sinks lists http"

checkconf override "argv_max = 512
"  -o argv_max=1
check "a bad -o override: exit 78, said" sh -c "[ $RC = 78 ] && grep -q '^-o argv_max: 1 out of range' '$TMP/override.err'"

printf 'interpreter\nbogus-directive x\n' >"$TMP/bad.rules"
checkconf rules "rules = $TMP/bad.rules
"
check "a rules file with a bad line: exit 78" test "$RC" = 78

# ---- a starting tracerd: as strict as --check-config ----

# startconf NAME TEXT: write $TMP/NAME.conf and start tracerd on it (its
# own socket, pins and state); RC: its exit status when it exited, or
# "running" once it answers on its socket (left running for the caller
# to stop); stderr in ERR
startconf() {
	local name=$1 text=$2
	TRACERD_SOCK=$TMP/$name.sock TRACERD_FILE=$TMP/$name.ndjson
	printf 'socket = %s\n%s' "$TRACERD_SOCK" "$text" >"$TMP/$name.conf"
	"$BUILD/tracerd" -c "$TMP/$name.conf" -o pin_dir="$TRACERD_PINS" \
		-o state_dir="$TMP/tracerd-state" -o spool_dir="$TMP/$name.spool" \
		-o file="$TRACERD_FILE" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	TRACERD_PID=$!
	RC=unknown
	if wait_until 30 "tracerd on $name.conf to exit or answer" tracerd_answers_or_died; then
		if proc_gone "$TRACERD_PID"; then
			wait "$TRACERD_PID"
			RC=$?
			TRACERD_PID=
		else
			RC=running
		fi
	fi
	ERR=$(cat "$TMP/$name.err")
}
# logged TEXT: tracerd's stderr (the journal under systemd) holds TEXT
logged() { grep -qF -- "$1" <<<"$ERR"; }

echo "== a starting tracerd refuses an invalid file"
startconf start_unknown "sinks = file
sinkz = http
"
check "an unknown key: tracerd exits 78 (EX_CONFIG) instead of running" test "$RC" = 78
check "an unknown key: FILE:LINE: KEY: what on stderr" logged "$TMP/start_unknown.conf:3: sinkz: unknown key"
check "an unknown key: it said why it did not start" logged "$TMP/start_unknown.conf: 1 problem: not starting (tracerd --check-config lists them)"
check "an unknown key: nothing served (no socket)" test ! -e "$TMP/start_unknown.sock"
stop_tracerd

startconf start_badval "sinks = file,ftp
"
check "a bad value: tracerd exits 78 instead of running with the default sinks" test "$RC" = 78
check "a bad value: FILE:LINE: KEY: what on stderr" \
	logged "$TMP/start_badval.conf:2: sinks: unknown sink \"ftp\" (known: file, http, clickhouse)"
check "a bad value: nothing served (no socket)" test ! -e "$TMP/start_badval.sock"
stop_tracerd

startconf start_good "sinks = file
sample_interval_ms = 500
"
check "a valid file: tracerd runs and answers on its socket" test "$RC" = running
check "a valid file: no problem logged" not grep -q "problem" "$TMP/start_good.err"
stop_tracerd

# ---- make install: an edited configuration survives ----

echo "== make install keeps an edited /etc/tracer and puts the new default beside it"
IROOT=$TMP/root
# install ROUND: make install into IROOT (the build is BUILD's, up to date)
install_round() {
	make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$IROOT" SLURM_PLUGIN_DIR=/usr/lib/slurm install \
		>"$TMP/install.$1.out" 2>&1
}
if ! install_round 1; then
	fail "make install DESTDIR=$IROOT: $(tail -5 "$TMP/install.1.out")"
else
	check "the first install: the shipped tracer.conf and tools.rules" sh -c \
		"cmp -s '$TOP/contrib/tracer.conf' '$IROOT/etc/tracer/tracer.conf' && cmp -s '$TOP/contrib/rules/tools.rules' '$IROOT/etc/tracer/tools.rules'"
	echo "sinks = file,http  # site edit" >>"$IROOT/etc/tracer/tracer.conf"
	echo "interpreter site-python" >>"$IROOT/etc/tracer/tools.rules"
	if ! install_round 2; then
		fail "make install again: $(tail -5 "$TMP/install.2.out")"
	else
		check "the second install keeps the edited tracer.conf" grep -qx "sinks = file,http  # site edit" "$IROOT/etc/tracer/tracer.conf"
		check "the second install keeps the edited tools.rules" grep -qx "interpreter site-python" "$IROOT/etc/tracer/tools.rules"
		check "the new defaults beside them as .new" sh -c \
			"cmp -s '$TOP/contrib/tracer.conf' '$IROOT/etc/tracer/tracer.conf.new' && cmp -s '$TOP/contrib/rules/tools.rules' '$IROOT/etc/tracer/tools.rules.new'"
		check "make install says so" grep -qF "$IROOT/etc/tracer/tracer.conf: kept as edited; the new default is $IROOT/etc/tracer/tracer.conf.new" "$TMP/install.2.out"
		check "an unedited file is simply replaced (no .new)" sh -c \
			"rm -f '$IROOT/etc/tracer/tracer.conf.new' && cp '$TOP/contrib/tracer.conf' '$IROOT/etc/tracer/tracer.conf' && make -s -C '$TOP' BUILD='$BUILD' DESTDIR='$IROOT' SLURM_PLUGIN_DIR=/usr/lib/slurm install >/dev/null && test ! -e '$IROOT/etc/tracer/tracer.conf.new'"
	fi
fi

# ---- SIGHUP ----

# tracerd from a configuration file only (so that the file decides what
# a reload changes): pins and journal are the suite's own
CONF=$TMP/tracerd.conf
TRACERD_SOCK=$TMP/d.sock
TRACERD_LOG=$TMP/d.log
FILE_A=$TMP/a.ndjson FILE_B=$TMP/b.ndjson
writeconf() { # FILE [SINKS [more lines]]
	printf 'socket = %s\nfile = %s\nsinks = %s\nspool_dir = %s\nrules = %s\n%s' \
		"$TRACERD_SOCK" "$1" "${2:-file}" "$TMP/spool" "$TMP/tools.rules" "${3:-}" >"$CONF"
}
# summary_in FILE JOBFILE: the job's summary is in FILE
summary_in() {
	local uid
	uid=$(cat "$2" 2>/dev/null) && [ -n "$uid" ] && [ -f "$1" ] && grep -q "\"job\":\"$uid\"" "$1"
}
# tool_of FILE JOBFILE: the first tool of the job's summary
tool_of() {
	python3 - "$1" "$(cat "$2")" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print([x for x in s if x["job"] == sys.argv[2]][-1]["tools"][0]["tool"])
PY
}
hup() { # wait for the reload's log line, counted
	local before
	before=$(grep -c "SIGHUP: reloading" "$TRACERD_LOG")
	kill -HUP "$TRACERD_PID"
	wait_until 10 "tracerd to take SIGHUP" sh -c "[ \$(grep -c 'SIGHUP: reloading' '$TRACERD_LOG') -gt $before ]"
}

echo "== SIGHUP: sinks, rules and thresholds change at run time"
: >"$TMP/tools.rules"
writeconf "$FILE_A"
"$BUILD/tracerd" -c "$CONF" -o pin_dir="$TRACERD_PINS" -o state_dir="$TMP/tracerd-state" >>"$TRACERD_LOG" 2>&1 &
TRACERD_PID=$!
TRACERD_FILE=$FILE_A
poll_until 30 tracerd_answers_or_died
tr_cli status >/dev/null 2>&1 || { fail "tracerd did not start"; sed 's/^/    /' "$TRACERD_LOG"; exit 1; }
tr_cli run --job-file "$TMP/j1" -- "$H/tiny" 0
wait_until 20 "the first job's summary in file A" summary_in "$FILE_A" "$TMP/j1"
check "before the reload the tool is the executable" test "$(tool_of "$FILE_A" "$TMP/j1")" = tiny

writeconf "$FILE_B" file "stall_threshold_s = 7
"
echo "subcommand tiny" >"$TMP/tools.rules"
hup
wait_until 10 "the reload to be done" grep -q "configuration reloaded from $CONF" "$TRACERD_LOG"
wait_until 10 "the new sinks to start" grep -q "reload: sinks file" "$TRACERD_LOG"
tr_cli run --job-file "$TMP/j2" -- "$H/tiny" 0
wait_until 20 "the next job's summary in file B (the file sink's new path)" summary_in "$FILE_B" "$TMP/j2"
check "and not in file A" not summary_in "$FILE_A" "$TMP/j2"
check "the new rules apply (subcommand tiny)" test "$(tool_of "$FILE_B" "$TMP/j2")" = "tiny 0"
check "tracer status shows the reloaded configuration" sh -c \
	"'$BUILD/tracer' -o socket='$TRACERD_SOCK' status --json | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"file\"] != sys.argv[1])' '$FILE_B'"

echo "== SIGHUP with an invalid file: the current configuration stays"
writeconf "$FILE_A" file "no_such_key = 1
"
hup
wait_until 10 "the refusal to be logged" grep -q "the current configuration stays" "$TRACERD_LOG"
check "the problem logged as FILE:LINE: KEY: what" grep -q "SIGHUP: $CONF:6: no_such_key: unknown key" "$TRACERD_LOG"
tr_cli run --job-file "$TMP/j3" -- "$H/tiny" 0
wait_until 20 "the next job's summary, still in file B" summary_in "$FILE_B" "$TMP/j3"
check "not in file A" not summary_in "$FILE_A" "$TMP/j3"

echo "== SIGHUP: a key only a restart changes keeps its value, and says so"
writeconf "$FILE_B" file "argv_max = 256
"
hup
wait_until 10 "the reload to be done" sh -c "[ \$(grep -c 'configuration reloaded from' '$TRACERD_LOG') -ge 2 ]"
check "argv_max: logged as taking effect at the next start" \
	grep -q "SIGHUP: argv_max changed: it takes effect at the next start" "$TRACERD_LOG"

echo "== SIGHUP away from a hanging HTTP sink: the loop does not wait"
python3 "$TOP/tests/delivery/httpd.py" hang "$HANG_PORT" "$TMP/hang.log" >/dev/null 2>&1 &
HTTPD_PID=$!
wait_until 30 "the hanging collector" python3 -c "import socket; socket.create_connection(('127.0.0.1', $HANG_PORT), 1)"
# the collector holds the transfer until it is stopped, the sink would
# wait for it 120 s (the most it takes): a reload or a loop that waited for it meets none of
# the deadlines below
writeconf "$FILE_B" file,http "http_url = http://127.0.0.1:$HANG_PORT/
http_timeout_ms = 120000
"
hup
wait_until 10 "the http sink to start" grep -q "reload: sinks file,http" "$TRACERD_LOG"
tr_cli run --job-file "$TMP/j4" -- "$H/tiny" 0
wait_until 20 "the job's summary in the file sink" summary_in "$FILE_B" "$TMP/j4"
wait_until 20 "the collector to hold the http sink's request" grep -q '"held"' "$TMP/hang.log"
writeconf "$FILE_B"
nfile=$(grep -c "reload: sinks file (" "$TRACERD_LOG")
reloaded() { [ "$(grep -c "reload: sinks file (" "$TRACERD_LOG")" -gt "$nfile" ]; }
s=$(now_us)
kill -HUP "$TRACERD_PID"
# status asked from the SIGHUP on, each request with its own deadline of 30 s
python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/probe.out" "$TMP/probe.stop" --min 10 &
PROBE_PID=$!
wait_until 60 "the reload away from the hung sink to finish" reloaded
e=$(now_us)
touch "$TMP/probe.stop"
wait_until 300 "the status probe's 10 replies" proc_gone "$PROBE_PID"
wait "$PROBE_PID"; PROBE_PID=
echo "    information: the reload took $(( (e - s) / 1000 )) ms; status round trips from the SIGHUP on: $(cat "$TMP/probe.out")"
# (the collector never lets go of what it holds: alive, it holds it)
reloaded_while_held() { reloaded && kill -0 "$HTTPD_PID"; }
check "the reload cut the hung transfer and finished while the collector still held it" reloaded_while_held
check "the hung connection is closed" sh -c "[ \$(ss -Htn state established '( dport = :$HANG_PORT )' | wc -l) -eq 0 ]"
check "tracer status answered from the SIGHUP on: 10 replies, none unanswered (30 s each)" \
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d['failed'] == 0 and d['n'] >= 10))" "$TMP/probe.out"
tr_cli run --job-file "$TMP/j5" -- "$H/tiny" 0
wait_until 20 "a job after the reload recorded" summary_in "$FILE_B" "$TMP/j5"
stop_tracerd
check "tracerd stopped cleanly after the reloads" grep -q "shutting down" "$TRACERD_LOG"
no_sanitizer_reports "no sanitizer report in tracerd's logs" "${TRACERD_LOGS[@]}"
finish
