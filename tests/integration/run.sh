#!/bin/bash
# run.sh BUILD - tracerd on the real kernel: start it, run real workloads
# under `tracer run`, check every summary against ground truth taken from
# wait4 of the same processes.  Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
H=$BUILD/tests/helpers
TMP=$(mktemp -d /tmp/tracer-it.XXXXXX)
. "$TOP/tests/lib.sh"
CHECK="$TOP/tests/integration/check.py"
CG_DIR=

cleanup() {
	stop_tracerd
	[ -n "$CG_DIR" ] && rmdir "$CG_DIR" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for h in tiny spin touchmem iorw daemonize spawner; do
	[ -x "$H/$h" ] || { echo "FAIL: helper $H/$h missing (make all)"; exit 1; }
done
start_tracerd it || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

echo "== 2,000 processes of about 1 ms"
trun "$TMP/j.storm" -- "$H/spawner" "$TMP/truth.storm" 2000 "$H/tiny" %i
chk "exec storm: 2000 recorded, right executable and exit codes, no drops" "$TMP/j.storm" storm 2000 "$TMP/truth.storm" tiny

echo "== CPU seconds against wait4"
trun "$TMP/j.cpu" -- "$H/spawner" "$TMP/truth.cpu" 6 "$H/spin" 300
chk "CPU per tool within 2% of wait4" "$TMP/j.cpu" cpu "$TMP/truth.cpu" spin

echo "== peak RSS against wait4"
trun "$TMP/j.rss" -- "$H/spawner" "$TMP/truth.rss" 1 "$H/touchmem" 256 100
chk "peak RSS within 2% of wait4 maxrss" "$TMP/j.rss" rss "$TMP/truth.rss" touchmem

echo "== read/write bytes"
# exec's own reads of the ELF file count in rchar too: a run of the same
# binary with no I/O gives that base, the difference must be exact.
trun "$TMP/j.io0" -- "$H/iorw" "$TMP/io0.dat" 0
trun "$TMP/j.io" -- "$H/iorw" "$TMP/io.dat" 10485760
chk "rchar/wchar exact for a 10 MiB write and read" "$TMP/j.io" io 10485760 iorw "$TMP/j.io0"

echo "== exit codes and signals"
trun "$TMP/j.exit3" -- "$H/tiny" 3
chk "exit code 3 of the tool and of the job" "$TMP/j.exit3" exit tiny 3 3
SH=$(basename "$(readlink -f /bin/sh)")
trun "$TMP/j.sig" -- /bin/sh -c 'kill -KILL $$'
chk "death by SIGKILL" "$TMP/j.sig" exit "$SH" sig9 sig9
trun "$TMP/j.term" -- /bin/sh -c "$H/spin 5000 & p=\$!; sleep 0.3; kill -TERM \$p; wait \$p; exit 0"
chk "child killed by SIGTERM" "$TMP/j.term" exit spin sig15 0

echo "== OOM kill in a memory-limited cgroup"
if [ -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/memory/tracer-it-$$
	mkdir "$CG_DIR" && echo $((64 << 20)) >"$CG_DIR/memory.limit_in_bytes"
	echo 0 >"$CG_DIR/memory.swappiness" 2>/dev/null
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG_DIR=/sys/fs/cgroup/tracer-it-$$
	mkdir "$CG_DIR" && echo $((64 << 20)) >"$CG_DIR/memory.max" && echo 0 >"$CG_DIR/memory.swap.max" 2>/dev/null
fi
if [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ]; then
	trun "$TMP/j.oom" -- /bin/sh -c "echo \$\$ > $CG_DIR/cgroup.procs && exec $H/touchmem 512 100"
	chk "OOM victim recorded with oom_killed and SIGKILL" "$TMP/j.oom" oom
else
	fail "OOM test: no memory cgroup controller (v1 /sys/fs/cgroup/memory or v2 memory.max)"
fi

echo "== double-forking daemonizer"
trun "$TMP/j.daemon" -- /bin/sh -c "$H/daemonize 300; sleep 1"
chk "daemonized grandchild attributed to the job" "$TMP/j.daemon" daemon daemonize
trun "$TMP/j.outlive" -- "$H/daemonize" 3000
chk "daemon still alive at the end listed as outliving" "$TMP/j.outlive" outlived

echo "== registrant killed: the job ends when its last process exits"
"$BUILD/tracer" -o socket="$TRACERD_SOCK" -o file="$TRACERD_FILE" run --job-file "$TMP/j.vanish" -- "$H/spin" 400 &
rpid=$!
sleep 0.2
kill -KILL "$rpid"; wait "$rpid" 2>/dev/null
sleep 2.5 # spin's 400 ms of CPU, then the 1 s grace
chk "job closed after its registrant was killed" "$TMP/j.vanish" tool spin "" 1

echo "== a job with a cgroup of its own"
JOB_CG=
if [ -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	JOB_CG=/sys/fs/cgroup/memory/tracer-job-it-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	JOB_CG=/sys/fs/cgroup/tracer-job-it-$$
fi
if [ -n "$JOB_CG" ] && mkdir "$JOB_CG"; then
	/bin/sh -c "echo \$\$ > $JOB_CG/cgroup.procs && exec $BUILD/tracer -o socket=$TRACERD_SOCK run --job-file $TMP/j.cg -- $H/touchmem 200 1500"
	chk "cgroup counters read for the job" "$TMP/j.cg" cgroup $((200 << 20))
	rmdir "$JOB_CG"
else
	fail "job cgroup test: cannot create a memory cgroup"
fi

echo "== interpreters and privacy"
cat >"$TMP/step.py" <<'PY'
import subprocess
for i in range(3):
    subprocess.run(["/bin/true"])
PY
trun "$TMP/j.py" -- python3 "$TMP/step.py"
chk "python script is the tool, python3 its interpreter" "$TMP/j.py" tool step.py python3
chk "its subprocesses recorded" "$TMP/j.py" tool true "" 3
trun "$TMP/j.secret" -- "$H/tiny" 0 --password=hunter2 "$(printf 'bad\xff\xfeutf8')" 'https://bob:s3cr3t@example.org/x'
chk "summary file is valid UTF-8 JSON with hostile argv" "$TMP/j.secret" tool tiny
chk "password redacted" "$TMP/j.secret" absent hunter2
chk "URL credentials redacted" "$TMP/j.secret" absent s3cr3t

echo "== bad registration messages"
python3 - "$TRACERD_SOCK" >"$TMP/bad.out" 2>&1 <<'PY'
import socket, sys
def exchange(data, close_early=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall(data)
    if close_early:
        s.close()
        return b""
    out = b""
    try:
        while not out.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    s.close()
    return out
r = exchange(b"this is not json\n"); print("garbage:", r); assert b'"ok":false' in r, r
r = exchange(b'{"op":"register","identity":\n'); print("truncated json:", r); assert b'"ok":false' in r, r
exchange(b'{"op":"register","identity":{"task_name":"x"', close_early=True)
r = exchange(b"x" * 70000 + b"\n"); print("oversized:", r[:80]); assert b'"ok":false' in r, r
r = exchange(b'{"op":"register","identity":{"task_name":' + b'"' + b"y" * 5000 + b'"}}\n'); print("long field:", r[:80]); assert b'"ok":false' in r, r
r = exchange(b'\x00\xff\xfe{}\n'); print("binary:", r); assert b'"ok":false' in r, r
PY
if [ $? -eq 0 ]; then pass "garbage, truncated, oversized messages get error replies"; else fail "bad messages"; sed 's/^/    /' "$TMP/bad.out"; fi
trun "$TMP/j.after" -- "$H/tiny" 0
chk "daemon still serving after bad messages" "$TMP/j.after" tool tiny
check "tracer status reports the daemon" tr_cli status
check "tracer jobs lists jobs" tr_cli jobs
check "tracer show prints a job" tr_cli show "$(cat "$TMP/j.py")"

echo "== another user cannot end, join or impersonate"
trun "$TMP/j.owned" -- /bin/sleep 1.5 &
opid=$!
for _ in $(seq 1 50); do [ -s "$TMP/j.owned" ] && break; sleep 0.05; done
cat >"$TMP/other.py" <<'PY'
import json, socket, sys
def ask(req):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall(json.dumps(req).encode() + b"\n")
    out = b""
    while not out.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        out += chunk
    return json.loads(out)
job = sys.argv[2]
r = ask({"op": "end", "v": 1, "job": job, "status": 2304}); print("end:", r); assert not r["ok"], r
r = ask({"op": "task_exit", "v": 1, "job": job, "status": 35584}); print("task_exit:", r); assert not r["ok"], r
r = ask({"op": "register", "v": 1, "identity": {"scheduler": "slurm", "job_id": "77", "step_id": "0"}})
print("slurm register:", r); assert not r["ok"], r
PY
chmod 755 "$TMP"; chmod 644 "$TMP/other.py" # nobody reaches the socket and the script
if setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$TMP/other.py" "$TRACERD_SOCK" "$(cat "$TMP/j.owned")" >"$TMP/other.out" 2>&1; then
	pass "a non-root user cannot end or report on root's job, nor register a Slurm task"
else
	fail "other user's requests"; sed 's/^/    /' "$TMP/other.out"
fi
wait "$opid"
chk "the job closed by its own registrant, exit 0" "$TMP/j.owned" exit sleep 0 0

echo "== tracerd absent: the command still runs with its status"
"$BUILD/tracer" -o socket="$TMP/nothing.sock" run -- /bin/sh -c 'echo hello; exit 4' >"$TMP/absent.out" 2>&1
rc=$?
if [ $rc -eq 4 ] && grep -q hello "$TMP/absent.out"; then pass "untraced run keeps output and exit status"; else fail "untraced run: rc=$rc"; cat "$TMP/absent.out"; fi

stop_tracerd
if grep -qiE "AddressSanitizer|runtime error" "$TRACERD_LOG"; then fail "sanitizer report in tracerd log"; sed 's/^/    /' "$TRACERD_LOG"; fi

echo "== trace_all: processes outside any job go to the host job"
start_tracerd all -o trace_all=true || exit 1
"$H/tiny" 42
sleep 0.5
stop_tracerd
check "unregistered process recorded in the host job" python3 - "$TRACERD_FILE" <<'PY'
import json, sys
hosts = [s for s in map(json.loads, open(sys.argv[1])) if s["identity"].get("scheduler") == "host"]
assert hosts, "no host job summary"
tiny = [t for h in hosts for t in h["tools"] if t["tool"] == "tiny"]
assert tiny and any(e.get("code") == 42 for e in tiny[0]["exit_codes"]), [t["tool"] for h in hosts for t in h["tools"]]
PY
finish
