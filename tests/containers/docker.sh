#!/bin/bash
# docker.sh BUILD - docker containers (Debian's docker.io) on the real
# kernel: tracer-wrap as a docker container's entrypoint with tracerd on
# the host, as on AWS Batch, where ECS runs jobs with docker.  The test
# runs its own dockerd: private data root, exec root, pidfile, socket and
# containerd namespaces; no bridge and no iptables rules (the test's
# containers have no network); vfs storage.  Then containers that
# dockerd starts for a tagged `docker run`, `docker create` + `start`:
# they join the job through dockerd's container list (docker_sockets),
# never another job's, and a missing or hanging dockerd blocks nothing.
# Needs root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-ctdk.XXXXXX)
. "$TOP/tests/lib.sh"
. "$TOP/tests/containers/lib.sh"
CHECK="$TOP/tests/containers/check.py"

DOCKERD_PID=
HANG_PID=
PROBE_PID=
STARTED=() # containers this suite started: removed by name, even on failure
dk() { docker -H "unix://$TMP/docker.sock" "$@"; }
cleanup() {
	for c in "${STARTED[@]}"; do dk rm -f "$c" >/dev/null 2>&1; done
	stop_tracerd
	[ -n "$HANG_PID" ] && kill "$HANG_PID" 2>/dev/null
	[ -n "$PROBE_PID" ] && kill "$PROBE_PID" 2>/dev/null
	if [ -n "$DOCKERD_PID" ]; then
		kill -TERM "$DOCKERD_PID" 2>/dev/null
		poll_until 30 proc_gone "$DOCKERD_PID" ||
			{ echo "FAIL: dockerd $DOCKERD_PID ignored SIGTERM"; kill -KILL "$DOCKERD_PID"; }
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
need_root
for b in tracerd tracer tracer-wrap; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing (make all)"; exit 1; }
done
for c in dockerd docker containerd runc; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed (Debian package docker.io)"; exit 1; }
done
BUSYBOX=$(readlink -f /bin/busybox)
[ -x "$BUSYBOX" ] || { echo "FAIL: busybox is missing (Debian package busybox-static)"; exit 1; }

echo "== a private dockerd"
dockerd --data-root "$TMP/data" --exec-root "$TMP/exec" --pidfile "$TMP/dockerd.pid" \
	-H "unix://$TMP/docker.sock" --iptables=false --ip6tables=false --bridge=none \
	--storage-driver=vfs --containerd-namespace "tracer-ct-$$" \
	--containerd-plugins-namespace "tracer-ctp-$$" >"$TMP/dockerd.log" 2>&1 &
DOCKERD_PID=$!
dockerd_up() { proc_gone "$DOCKERD_PID" || dk version >/dev/null 2>&1; }
poll_until 60 dockerd_up
if proc_gone "$DOCKERD_PID" || ! dk version >/dev/null 2>&1; then
	fail "dockerd did not start; its log:"
	tail -20 "$TMP/dockerd.log" | sed 's/^/    /'
	DOCKERD_PID=
	finish; exit 1
fi
pass "dockerd runs (vfs, no bridge, no iptables)"

IMG=tracer-ct-docker:$$
busybox_rootfs_tar "$BUSYBOX" "$TMP/image.tar" || { fail "the busybox root filesystem"; finish; exit 1; }
if ! out=$(dk import "$TMP/image.tar" "$IMG" 2>&1); then
	fail "docker import of a directory tarball: $out"
	finish; exit 1
fi
pass "image built locally with docker import"

start_tracerd dk -o docker_sockets="$TMP/docker.sock" || exit 1
chk() { check "$1" python3 "$CHECK" "$TRACERD_FILE" "${@:2}"; }

# an untagged container beside the job: its md5sum loop is in no job
STARTED+=(tracer-dk-untagged-$$)
if ! UNTAGGED_ID=$(dk run -d --network none --name "tracer-dk-untagged-$$" "$IMG" \
	/bin/sh -c 'while :; do /bin/md5sum /bin/busybox >/dev/null; /bin/sleep 0.2; done' 2>&1); then
	fail "docker run of the untagged container: $UNTAGGED_ID"
	finish; exit 1
fi

echo "== tracer-wrap as a docker container's entrypoint, tracerd on the host"
STARTED+=(tracer-dk-wrap-$$)
mkdir "$TMP/flag"
dk run --name "tracer-dk-wrap-$$" --cidfile "$TMP/wrap.cid" --network none \
	-v "$TMP:/run/tracer:ro" -v "$TMP/flag:/flag" \
	-e AWS_BATCH_JOB_ID=dk-batch-$$ -e AWS_BATCH_JQ_NAME=dk-queue -e AWS_BATCH_JOB_ATTEMPT=1 \
	-e AWS_EC2_METADATA_DISABLED=true \
	"$IMG" /bin/tracer-wrap -v --socket /run/tracer/dk.sock -- \
	/bin/sh -c '/bin/gzip -c /bin/busybox >/dev/null
	i=0; while [ ! -e /flag/go ] && [ $i -lt 600 ]; do /bin/sleep 0.1; i=$((i + 1)); done
	exit 3' >"$TMP/wrap.out" 2>&1 &
RUN_PID=$!
container_joined() {
	[ -s "$TMP/wrap.cid" ] && grep -q "container docker $(head -c 12 "$TMP/wrap.cid") .* joins the job" "$TRACERD_LOG"
}
if wait_until 60 "tracerd to tag the docker container's cgroup for the job" container_joined; then
	pass "the docker container joins the job (its v2 cgroup tagged)"
	# from outside the job: started by dockerd and containerd, not the job
	dk exec "tracer-dk-wrap-$$" /bin/cat /bin/busybox >/dev/null 2>"$TMP/exec.err" ||
		fail "docker exec into the container: $(cat "$TMP/exec.err")"
fi
touch "$TMP/flag/go"
wait "$RUN_PID"
rc=$?
check "exit code 3 of the command passed through docker" test "$rc" = 3
JOB=$(sed -n 's/.*registered with tracerd as job \([^ ]*\).*/\1/p' "$TMP/wrap.out" | head -1)
if [ -z "$JOB" ]; then
	fail "tracer-wrap in the docker container registered with tracerd; its output:"
	sed 's/^/    /' "$TMP/wrap.out"
else
	CID=$(cat "$TMP/wrap.cid")
	chk "identity from AWS_BATCH_* given with -e" "$JOB" identity job_id "dk-batch-$$"
	chk "container id and runtime docker in the summary" "$JOB" container docker "$CID"
	chk "docker keeps name and image beside the environment: neither is read" "$JOB" \
		container-unnamed
	chk "the container cgroup's counters" "$JOB" container-counters
	chk "busybox gzip exec'd by path is tool gzip" "$JOB" tool gzip /bin/busybox
	chk "a docker exec into the container from outside the job is in the job" "$JOB" tool cat /bin/busybox
	chk "the job's exit code is 3" "$JOB" exit 3
	chk "the untagged container's md5sum is not in the job" "$JOB" no-tool md5sum
fi
# The containers below wait for the test's go (a file in a mounted
# directory, at most 60 s) before their work: what runs after tracerd
# tagged their cgroup is the job's by the kernel; what ran before (the
# container's sh) by adoption.
go_script='i=0; while [ ! -e /flag/go ] && [ $i -lt 600 ]; do /bin/sleep 0.1; i=$((i + 1)); done'
# joined CIDFILE: tracerd logged that the container joined a job
joined() {
	[ -s "$1" ] && grep -q "container docker $(head -c 12 "$1") .* joins the job" "$TRACERD_LOG"
}
DK="docker -H unix://$TMP/docker.sock"

echo "== tracer run -- docker run: dockerd starts the container, it joins the job"
STARTED+=(tracer-dk-run-$$)
mkdir "$TMP/f.run"
trun "$TMP/j.run" -- $DK run --rm --network none --name "tracer-dk-run-$$" --cidfile "$TMP/run.cid" \
	-v "$TMP/f.run:/flag" "$IMG" /bin/sh -c "$go_script; /bin/gzip -c /bin/busybox >/dev/null; exit 4" &
RUN_PID=$!
wait_until 60 "the container of tracer run -- docker run to join the job" joined "$TMP/run.cid" &&
	pass "the container started by dockerd for a tagged docker run joins the job"
touch "$TMP/f.run/go"
wait "$RUN_PID"
rc=$?
check "exit code 4 of the container passed through docker run and tracer run" test "$rc" = 4
if [ -s "$TMP/run.cid" ]; then
	RUN_CID=$(cat "$TMP/run.cid")
	chk "the container's gzip is in the job" "@$TMP/j.run" tool gzip /bin/busybox
	chk "its sh, started before the tag, is in the job (adopted)" "@$TMP/j.run" tool sh /bin/busybox
	chk "the container is the job's: runtime docker and its id" "@$TMP/j.run" container docker "$RUN_CID"
	chk "its name and image from dockerd's container list" "@$TMP/j.run" \
		container-named "tracer-dk-run-$$" "$IMG"
	chk "docker_joins: one command watched" "@$TMP/j.run" joins watched =1
	chk "docker_joins: its container joined" "@$TMP/j.run" joins joined =1
	chk "the untagged container's md5sum is not in the job" "@$TMP/j.run" no-tool md5sum
	show_names() {
		local out
		out=$(tr_cli show --wide "$(cat "$TMP/j.run")") || return 1
		grep -q "^Container docker ${RUN_CID:0:12} name tracer-dk-run-$$ image $IMG" <<<"$out" ||
			{ echo "$out"; return 1; }
	}
	check "tracer show names the docker container" show_names
else
	fail "tracer run -- docker run did not start the container"
fi

echo "== docker create, then docker start -a, in one job"
STARTED+=(tracer-dk-cs-$$)
mkdir "$TMP/f.cs"
trun "$TMP/j.cs" -- /bin/sh -c "$DK create --network none --name tracer-dk-cs-$$ --cidfile '$TMP/cs.cid' \
	-v '$TMP/f.cs:/flag' '$IMG' /bin/sh -c '$go_script; /bin/seq 3 >/dev/null' >/dev/null &&
	exec $DK start -a tracer-dk-cs-$$" &
CS_PID=$!
wait_until 60 "the created and started container to join the job" joined "$TMP/cs.cid" &&
	pass "a container made by docker create and run by docker start joins the job"
touch "$TMP/f.cs/go"
wait "$CS_PID"
if [ -s "$TMP/cs.cid" ]; then
	chk "the started container's seq is in the job" "@$TMP/j.cs" tool seq /bin/busybox
	chk "the job's container is the one created" "@$TMP/j.cs" container docker "$(cat "$TMP/cs.cid")"
	chk "docker_joins: create and start watched" "@$TMP/j.cs" joins watched =2
	chk "docker_joins: joined" "@$TMP/j.cs" joins joined 1
	chk "docker_joins: nothing ambiguous" "@$TMP/j.cs" joins ambiguous =0
else
	fail "docker create did not make the container"
fi

echo "== two jobs start containers of one image, same command, no --name, at once"
mkdir "$TMP/f.a" "$TMP/f.b"
TWO_CMD="$go_script; /bin/cat /bin/busybox >/dev/null"
trun "$TMP/j.a" -- $DK run --rm --network none --cidfile "$TMP/a.cid" -v "$TMP/f.a:/flag" "$IMG" \
	/bin/sh -c "$TWO_CMD" &
A_PID=$!
trun "$TMP/j.b" -- $DK run --rm --network none --cidfile "$TMP/b.cid" -v "$TMP/f.b:/flag" "$IMG" \
	/bin/sh -c "$TWO_CMD" &
B_PID=$!
# each job's command is decided: its container joined, or it was ambiguous
decided() {
	local uid n=0
	for jf in "$TMP/j.a" "$TMP/j.b"; do
		uid=$(cat "$jf" 2>/dev/null) && [ -n "$uid" ] || return 1
		grep -q "job $uid: container docker .* joins the job\|job $uid: the container of pid .* does not join" \
			"$TRACERD_LOG" && n=$((n + 1))
	done
	[ "$n" = 2 ]
}
wait_until 60 "both jobs' docker commands to be decided" decided &&
	pass "both jobs' docker commands decided (joined or ambiguous)"
touch "$TMP/f.a/go" "$TMP/f.b/go"
wait "$A_PID" "$B_PID"
if [ -s "$TMP/a.cid" ] && [ -s "$TMP/b.cid" ]; then
	chk "job A: its own container or none (ambiguous), never B's" "@$TMP/j.a" \
		own-container "$(cat "$TMP/a.cid")" "$(cat "$TMP/b.cid")"
	chk "job B: its own container or none (ambiguous), never A's" "@$TMP/j.b" \
		own-container "$(cat "$TMP/b.cid")" "$(cat "$TMP/a.cid")"
	for jf in a b; do
		echo "   job $jf: $(python3 -c '
import json, sys
uid = open(sys.argv[2]).read().strip()
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s.get("job") == uid:
        print("docker_joins", json.dumps(s.get("docker_joins")))' "$TRACERD_FILE" "$TMP/j.$jf")"
	done
else
	fail "the two jobs' containers did not start"
fi

echo "== two jobs at once, each container named (--name): each joins its own job"
mkdir "$TMP/f.c" "$TMP/f.d"
STARTED+=(tracer-dk-c-$$ tracer-dk-d-$$)
for x in c d; do
	trun "$TMP/j.$x" -- $DK run --rm --network none --name "tracer-dk-$x-$$" --cidfile "$TMP/$x.cid" \
		-v "$TMP/f.$x:/flag" "$IMG" /bin/sh -c "$TWO_CMD" &
	eval "${x^^}_PID=\$!"
done
both_joined() { joined "$TMP/c.cid" && joined "$TMP/d.cid"; }
wait_until 60 "both named containers to join their jobs" both_joined &&
	pass "two jobs' named containers, started at once, both join"
touch "$TMP/f.c/go" "$TMP/f.d/go"
wait "$C_PID" "$D_PID"
if [ -s "$TMP/c.cid" ] && [ -s "$TMP/d.cid" ]; then
	chk "job C has its own container, not D's" "@$TMP/j.c" own-container "$(cat "$TMP/c.cid")" "$(cat "$TMP/d.cid")"
	chk "job D has its own container, not C's" "@$TMP/j.d" own-container "$(cat "$TMP/d.cid")" "$(cat "$TMP/c.cid")"
	chk "job C: joined, not ambiguous" "@$TMP/j.c" joins joined =1
	chk "job D: joined, not ambiguous" "@$TMP/j.d" joins joined =1
	chk "job C's cat ran in its container" "@$TMP/j.c" tool cat /bin/busybox
else
	fail "the two named containers did not start"
fi
RUN_FILE=$TRACERD_FILE

echo "== a Slurm step of user nobody cannot pull root's running container into its job"
# The SPANK plugin registers a step as root; its task runs as the user.
# The task runs the docker CLI's `start` on root's running container, and
# a program that merely calls itself docker (exec -a docker tail).  The
# socket is made writable by nobody here, so that each refusal is the
# client's or the container's, not the socket's.
STARTED+=(tracer-dk-victim-$$)
if ! VICTIM_ID=$(dk run -d --network none --name "tracer-dk-victim-$$" "$IMG" \
	/bin/sh -c 'while :; do /bin/gzip -c /bin/busybox >/dev/null; /bin/sleep 0.3; done' 2>&1); then
	fail "docker run of root's container: $VICTIM_ID"
	finish; exit 1
fi
VIC=$TMP/vic
mkdir -m 1777 "$VIC"
SOCK_MODE=$(stat -c %a "$TMP/docker.sock")
chmod 711 "$TMP"
chmod 666 "$TMP/docker.sock"
dj_refused() { tr_cli status --json | python3 -c '
import json, sys
print(json.load(sys.stdin)["jobs"]["docker_joins"]["refused"])'; }
REFUSED0=$(dj_refused)
refused_by() { [ "$(dj_refused)" -ge $((REFUSED0 + $1)) ]; }
python3 "$TOP/tests/containers/slurmtask.py" "$TRACERD_SOCK" "$TMP/j.vic" nobody -- \
	env DOCKER_CONFIG="$VIC" /bin/bash -c "$DK start tracer-dk-victim-$$ >/dev/null 2>&1
	(exec -a docker tail -f /dev/null start tracer-dk-victim-$$) & t=\$!
	i=0; while [ ! -e '$VIC/go' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	kill \$t" &
VIC_PID=$!
wait_until 60 "tracerd to refuse both docker commands (tracer status docker_joins.refused)" \
	refused_by 2 && pass "both docker commands of nobody's step refused (tracer status counts them)"
touch "$VIC/go"
wait "$VIC_PID"
check "nobody's step ran to its end" test $? = 0
chmod 700 "$TMP"
chmod "$SOCK_MODE" "$TMP/docker.sock"
if wait_until 30 "the summary of nobody's step" summary_of_job "$TMP/j.vic"; then
	VIC_JOB=$(cat "$TMP/j.vic")
	fake_refused() { grep -q "job $VIC_JOB: pid [0-9]* runs a program named docker that is none of docker_clients" "$TRACERD_LOG"; }
	check "the program named docker is refused as not the docker CLI" fake_refused
	chk "docker_joins: both commands seen" "@$TMP/j.vic" joins watched =2
	chk "docker_joins: no container joined" "@$TMP/j.vic" joins joined =0
	chk "docker_joins: both refused" "@$TMP/j.vic" joins refused =2
	chk "root's container's gzip is not in the job" "@$TMP/j.vic" no-tool gzip
	no_victim() {
		python3 - "$TRACERD_FILE" "$VIC_JOB" "$VICTIM_ID" "tracer-dk-victim-$$" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    if s.get("job") == sys.argv[2]:
        if "container" in s:
            sys.exit(f"the job has a container: {s['container']}")
        if sys.argv[3] in l:
            sys.exit("root's container's id is in the job's summary")
        n = sum(1 for p in s.get("process_tree", []) if "/bin/gzip" in json.dumps(p))
        sys.exit(f"{n} of root's container's processes in the job" if n else 0)
sys.exit("no summary")
PY
	}
	check "nothing of root's container in nobody's summary" no_victim
fi

echo "== docker_sockets names a missing socket and a dockerd that never answers"
stop_tracerd
# a dockerd that answers nothing: it logs when each ask began (accepted)
# and ended (tracerd gave up and closed), CLOCK_MONOTONIC seconds
python3 -c '
import select, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(16)
log = open(sys.argv[2], "a", buffering=1)
conns = []
while True:
    for c in select.select([s] + conns, [], [])[0]:
        if c is s:
            conns.append(s.accept()[0])
            log.write("open %.6f\n" % time.monotonic())
        elif not c.recv(65536):  # the request is read, never answered
            conns.remove(c); c.close()
            log.write("close %.6f\n" % time.monotonic())
' "$TMP/hang.sock" "$TMP/hang.asks" &
HANG_PID=$!
poll_until 10 test -S "$TMP/hang.sock" || fail "the hanging listener did not start"
start_tracerd dk-hang -o docker_sockets="$TMP/no-such.sock,$TMP/hang.sock" || { kill "$HANG_PID"; finish; exit 1; }
mkdir "$TMP/f.h"
trun "$TMP/j.hang" -- $DK run --rm --network none -v "$TMP/f.h:/flag" "$IMG" \
	/bin/sh -c "$go_script; exit 0" &
H_PID=$!
# the watch asks the hanging dockerd (1 s per try) while the client lives
dj_status() { # dj_status FIELD VALUE: tracer status's docker_joins FIELD is VALUE
	tr_cli status --json | python3 -c '
import json, sys
dj = json.load(sys.stdin).get("jobs", {}).get("docker_joins") or {}
sys.exit(0 if dj.get(sys.argv[1]) == int(sys.argv[2]) else f"status docker_joins {dj}")' "$@"
}
wait_until 30 "tracerd to watch the docker command" dj_status watched 1
# status asked while the watch's asks hang: a reply sent after the middle
# of an ask and received before its end was made while it hung (a loop
# that waited for the ask could make none then); the round trips are shown
# as information, make bench measures them
python3 "$TOP/tests/resilience/probe.py" "$TRACERD_SOCK" "$TMP/probe.out" "$TMP/probe.stop" \
	--times "$TMP/probe.times" &
PROBE_PID=$!
asks_ended() { [ "$(grep -c '^close' "$TMP/hang.asks")" -ge "$1" ]; }
# (grep -c exits 1 when it counts none: the count, not its status)
wait_until 30 "the status probe's first reply" test -e "$TMP/probe.out.ready" &&
	n0=$(grep -c '^close' "$TMP/hang.asks" || true) &&
	wait_until 60 "two asks of the hanging dockerd to end while status is asked" asks_ended $((n0 + 2))
touch "$TMP/probe.stop"
wait_until 60 "the status probe to end" proc_gone "$PROBE_PID"
wait "$PROBE_PID"; PROBE_PID=
echo "    status round trips (information): $(cat "$TMP/probe.out")"
inside_asks() {
	python3 - "$TMP/hang.asks" "$TMP/probe.times" "$TMP/probe.out" <<'PY'
import json, sys
ev = [l.split() for l in open(sys.argv[1])]
asks, t_open = [], None
for kind, t in ev:
    if kind == "open":
        t_open = float(t)
    elif t_open is not None:
        asks.append((t_open, float(t)))
        t_open = None
replies = [tuple(map(float, l.split())) for l in open(sys.argv[2])]
# inside the later half of an ask: a loop that took the watch's lock,
# or asked dockerd itself, would be waiting then
n = sum(1 for s, r in replies if any((a + b) / 2 < s and r < b for a, b in asks))
p = json.load(open(sys.argv[3]))
print("%d of %d replies made inside the later half of one of %d hanging asks, %d unanswered"
      % (n, len(replies), len(asks), p["failed"]))
sys.exit(0 if n >= 3 and p["failed"] == 0 else 1)
PY
}
check "tracer status answered while the watch's asks of a hanging dockerd hung (3 or more replies inside their later halves, none unanswered)" \
	inside_asks
touch "$TMP/f.h/go"
wait "$H_PID"
check "the job's command ran to its end" test $? = 0
wait_until 30 "the job's summary" summary_of_job "$TMP/j.hang" &&
	chk "the failure is counted in docker_joins" "@$TMP/j.hang" joins failed =1
check "tracer status counts the failed docker command" dj_status failed 1
status_says() { tr_cli status | grep -q "^docker: .*1 commands watched: 0 containers joined, .* 1 failed"; }
check "tracer status says the docker command failed" status_says
kill "$HANG_PID"
HANG_PID=
HANG_FILE=$TRACERD_FILE
validate_summaries "the hanging dockerd's job summary is valid" --min 1 "$HANG_FILE"

echo "== two docker_sockets: one records what it is asked; only the list, never an inspect"
stop_tracerd
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(16)
while True:
    c, _ = s.accept()
    req = b""
    while b"\r\n\r\n" not in req:
        d = c.recv(4096)
        if not d:
            break
        req += d
    with open(sys.argv[2], "ab") as f:
        f.write(req.split(b"\r\n")[0] + b"\n")
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]")
    c.close()
' "$TMP/rec.sock" "$TMP/rec.requests" &
HANG_PID=$!
poll_until 10 test -S "$TMP/rec.sock" || fail "the recording listener did not start"
start_tracerd dk-rec -o docker_sockets="$TMP/rec.sock,$TMP/docker.sock" || { finish; exit 1; }

echo "== a job of a user who cannot use any dockerd socket runs a 'docker': dockerd is not asked"
# (both sockets are root's, not writable by others: the CLI could not
# have used them; tracerd, root, must not ask on its behalf)
NB=$TMP/nobody
mkdir -m 1777 "$NB"
chmod 711 "$TMP"
cp /bin/true "$NB/docker" # a program named docker (a script's argv[0] is its shell)
chmod 755 "$NB/docker"
: >"$TMP/rec.requests"
UTRACER=$(user_copy "$BUILD/tracer") || exit 1 # one nobody can read (user_copy)
setpriv --reuid=nobody --regid=nogroup --clear-groups "$UTRACER" -o socket="$TRACERD_SOCK" \
	run --job-file "$NB/j" -- "$NB/docker" start "tracer-dk-rec-$$"
check "the job of user nobody ran" test $? = 0
no_docker_joins() {
	python3 - "$TRACERD_FILE" "$(cat "$NB/j")" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [x for x in s if x["job"] == sys.argv[2]]
sys.exit(0 if s and "docker_joins" not in s[-1] else 1)
PY
}
if wait_until 30 "the summary of nobody's job" summary_of_job "$NB/j"; then
	check "its docker command was not watched (no docker_joins)" no_docker_joins
	check "no dockerd was asked for it" test ! -s "$TMP/rec.requests"
fi
chmod 700 "$TMP"
STARTED+=(tracer-dk-rec-$$)
mkdir "$TMP/f.r"
trun "$TMP/j.rec" -- $DK run --rm --network none --name "tracer-dk-rec-$$" --cidfile "$TMP/rec.cid" \
	-v "$TMP/f.r:/flag" "$IMG" /bin/sh -c "$go_script; /bin/seq 2 >/dev/null" &
R_PID=$!
wait_until 60 "the container to join through the second socket" joined "$TMP/rec.cid" &&
	pass "a container joins through the second of two docker_sockets"
touch "$TMP/f.r/go"
wait "$R_PID"
only_list_asked() {
	[ -s "$TMP/rec.requests" ] || { echo "no request recorded"; return 1; }
	! grep -v '^GET /containers/json?all=1 HTTP/1.1$' "$TMP/rec.requests"
}
check "tracerd asked dockerd only GET /containers/json?all=1 (no inspect, no environment)" only_list_asked
[ -s "$TMP/rec.cid" ] && chk "the job has its container" "@$TMP/j.rec" container docker "$(cat "$TMP/rec.cid")"
kill "$HANG_PID"
HANG_PID=
validate_summaries "the recorded job's summary is valid" --min 1 "$TRACERD_FILE"
TRACERD_FILE=$RUN_FILE

no_untagged_anywhere() {
	! grep -q "$UNTAGGED_ID" "$TRACERD_FILE" || { echo "untagged container $UNTAGGED_ID in a summary"; return 1; }
}
check "the untagged container is in no summary" no_untagged_anywhere
validate_summaries "the summaries are valid" --min 1 "$TRACERD_FILE"
finish
