#!/bin/bash
# run-all.sh - every suite of `make test`; each runs even when an earlier
# one failed.  Exits non-zero if anything failed, and ends with each
# suite's duration and the total of the checks of all suites.
#
# Most suites run one after the other: they start tracerd, Slurm,
# ClickHouse, dockerd or a browser, on ports and with test users of their
# own, and some measure what a job's processes waited for.  Lanes run
# beside them, their suites one after the other, while suites that mostly
# wait run:
#   - what shares nothing with any suite (no tracerd, no service, no port,
#     no user; build directories of its own): the ASan+UBSan and
#     ThreadSanitizer builds (make test builds build/ first) beside the
#     suites on build/ alone, the fuzzer beside the Slurm SPANK suite,
#     the RPMs beside the container suites;
#   - suites that start a tracerd of their own (socket, pins, state and
#     jobs of its own), make no test user but their own, use ports no
#     suite beside them uses, and measure no time, beside those that wait
#     for ClickHouse, Prometheus, podman, dockerd or chromium;
#   - suites that each keep one core busy and measure no time, two at
#     once (tracer-wrap beside tune, tunelake and delivery), and the Slurm
#     accounting suite (a cluster of its own) in the last minute of the
#     SPANK suite, which waits for a job's time limit then.
# A lane ends before what needs its builds starts, and before the suites
# that compare elapsed times or measure run delay (analysis, tuneproof,
# tuneaws), count a job across a SIGKILL of tracerd (resilience, netio)
# or whose notes come from what a job used (the demo): nothing runs
# beside those.  No suite bounds tracer status's replies in time:
# they are proved by the order of events (replies counted while what the
# loop must not wait for is held) and measured by make bench.  A lane's
# output is printed whole where it ends, each suite's under its name.
# TEST_TIMELINE=DIR writes each suite's output there with the second
# each line appeared (see timeline below).
set -u
cd "$(dirname "$0")/.."
[ -z "${TEST_TIMELINE:-}" ] || mkdir -p "$TEST_TIMELINE" || exit 1
total_pass=0
total_fail=0
total_cpu=0
failed_suites=()
durations=()
start_all=$SECONDS
beside_pid=
BESIDE_DIR=$(mktemp -d /tmp/tracer-beside.XXXXXX) || { echo "FAIL: mktemp"; exit 1; }
trap '[ -n "$beside_pid" ] && kill -TERM "$beside_pid" 2>/dev/null; rm -rf "$BESIDE_DIR"' EXIT

# cpu_ticks: the machine's busy and total CPU ticks so far ("BUSY TOTAL"),
# from /proc/stat's first line (idle and iowait are not busy)
cpu_ticks() {
	local _ user nice sys idle iowait rest t=0 v
	read -r _ user nice sys idle iowait rest </proc/stat
	for v in $user $nice $sys $idle $iowait $rest; do t=$((t + v)); done
	echo "$((t - idle - iowait)) $t"
}

# busy_share "BUSY0 TOTAL0": the share of the machine's CPU busy since then
busy_share() {
	local b0 t0 b1 t1
	read -r b0 t0 <<<"$1"
	read -r b1 t1 <<<"$(cpu_ticks)"
	[ "$t1" -gt "$t0" ] || { echo 0; return; }
	echo $(((b1 - b0) * 100 / (t1 - t0)))
}

# child_cpu PID: CPU seconds (user and system) of the children of shell
# PID that have ended and been waited for, and of theirs: a suite's own
# work (a daemon that detached itself from the suite is not counted)
child_cpu() {
	local f
	f=$(sed 's/.*) //' "/proc/$1/stat") || return
	set -- $f
	echo $(((${14} + ${15}) / $(getconf CLK_TCK)))
}

# account NAME RC LOG SECONDS [CPU_S [BUSY%]]: count a finished suite's
# checks; its own CPU seconds, and the machine's CPU share busy while it
# ran (lanes included), show which suites work and which wait
account() {
	local name=$1 rc=$2 log=$3 secs=$4 cpu=${5:-} busy=${6:-} p f
	durations+=("$(printf '%5d s %5s %4s  %s' "$secs" "${cpu:+$cpu s}" "${busy:+$busy%}" "$name")")
	total_cpu=$((total_cpu + ${cpu:-0}))
	p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	# a CUnit binary prints its own table, not PASS lines: it counts as one
	if [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then p=1; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	[ "$rc" -ne 0 ] && failed_suites+=("$name")
	echo "######## $name: rc=$rc, $p passed, $f failed"
}

# timeline NAME: a suite's output, passed on; with TEST_TIMELINE=DIR also
# into DIR/NAME.txt, each line after the seconds since the suite began
# (where its time goes)
timeline() {
	local t0=$SECONDS line f
	if [ -z "${TEST_TIMELINE:-}" ]; then
		cat
		return
	fi
	f="$TEST_TIMELINE/${1//[^A-Za-z0-9+-]/_}.txt"
	: >"$f"
	while IFS= read -r line; do
		printf '%s\n' "$line"
		printf '%4d %s\n' $((SECONDS - t0)) "$line" >>"$f"
	done
}

suite() {
	local name=$1 log t0 c0 u0 lane0 rc
	shift
	echo
	echo "######## $name"
	log=$(mktemp /tmp/tracer-suite.XXXXXX)
	t0=$SECONDS
	c0=$(cpu_ticks) u0=$(child_cpu $$) lane0=$(lane_done)
	"$@" 2>&1 | tee "$log" | timeline "$name"
	rc=${PIPESTATUS[0]}
	# a lane that ended meanwhile was reaped by this shell: its CPU is
	# its suites', not this one's
	[ "$lane0" = 0 ] && [ "$(lane_done)" = 1 ] && u0=$((u0 + $(lane_cpu)))
	account "$name" "$rc" "$log" $((SECONDS - t0)) $(($(child_cpu $$) - u0)) "$(busy_share "$c0")"
	rm -f "$log"
}

# A lane beside the others: beside NAME COMMAND... adds a suite to the
# next lane, start_beside runs them one after the other in the
# background, each into BESIDE_DIR/N.log and N.rc ("RC SECONDS");
# end_beside waits for the lane, prints each suite's output and counts it.
BESIDE_NAMES=()
BESIDE_CMDS=()
beside() { BESIDE_NAMES+=("$1"); shift; BESIDE_CMDS+=("$(printf '%q ' "$@")"); }
start_beside() {
	echo
	echo "######## beside the next suites: $(printf '%s; ' "${BESIDE_NAMES[@]}")"
	rm -f "$BESIDE_DIR"/*.log "$BESIDE_DIR"/*.rc
	(
		lane=$BASHPID
		for i in "${!BESIDE_CMDS[@]}"; do
			t0=$SECONDS u0=$(child_cpu "$lane")
			eval "${BESIDE_CMDS[$i]}" 2>&1 </dev/null |
				timeline "${BESIDE_NAMES[$i]}" >"$BESIDE_DIR/$i.log"
			echo "${PIPESTATUS[0]} $((SECONDS - t0)) $(($(child_cpu "$lane") - u0))" >"$BESIDE_DIR/$i.rc"
		done
	) &
	beside_pid=$!
}
end_beside() {
	local i rc secs cpu t0=$SECONDS
	[ -n "$beside_pid" ] || return 0
	wait "$beside_pid"
	beside_pid=
	echo
	echo "######## the lane beside ended ($((SECONDS - t0)) s waited for it)"
	for i in "${!BESIDE_NAMES[@]}"; do
		echo
		echo "######## ${BESIDE_NAMES[$i]} (ran beside the others)"
		touch "$BESIDE_DIR/$i.log"
		cat "$BESIDE_DIR/$i.log"
		if ! read -r rc secs cpu <"$BESIDE_DIR/$i.rc" 2>/dev/null; then
			rc=1 secs=0 cpu=
			echo "FAIL: ${BESIDE_NAMES[$i]} left no exit status"
		fi
		account "${BESIDE_NAMES[$i]} (beside)" "$rc" "$BESIDE_DIR/$i.log" "$secs" "$cpu"
	done
	BESIDE_NAMES=()
	BESIDE_CMDS=()
}

# lane_done: 1 when the lane beside has ended (or none runs), else 0;
# lane_cpu: the CPU seconds of its suites that have ended
lane_done() { [ -n "$beside_pid" ] && kill -0 "$beside_pid" 2>/dev/null && echo 0 || echo 1; }
lane_cpu() { cat "$BESIDE_DIR"/*.rc 2>/dev/null | awk '{ s += $3 } END { print s + 0 }'; }

# The ASan+UBSan and ThreadSanitizer builds (make asan tsan) with make
# test's job count (TEST_BUILD_JOBS, -jN), alone on every CPU; outside
# make test's jobserver (MAKEFLAGS), which this script does not hold.  A
# build that fails fails this suite, and the suites that need it.
sanitizer_builds() {
	env -u MAKEFLAGS -u MFLAGS make "${TEST_BUILD_JOBS:--j$(nproc)}" asan tsan
}

# the sanitizer builds, and what needs them alone, beside the suites on
# build/ (no suite there measures time: hardening counts its status
# replies while the hostile execs run, privacy while the archive's
# workers are held, each reply with a deadline of 30 s)
beside "ASan+UBSan and ThreadSanitizer builds" sanitizer_builds
beside "unit tests (ASan+UBSan)" ./tests/run-unit.sh build-asan
beside "man pages" ./tests/man/run.sh build
start_beside
suite "unit tests" ./tests/run-unit.sh build
suite "install-deps choices (dry run)" ./tests/deps/run.sh
suite "kernel tests (root)" ./tests/run-unit.sh build tests/kernel
suite "BPF programs" ./build/tests/bpf/test_bpf
suite "tracerd integration" ./tests/integration/run.sh build
suite "shared node (users, socket, identity)" ./tests/hardening/run.sh build
suite "privacy (each user sees only their own jobs)" ./tests/privacy/run.sh build
end_beside
# alone, as its ASan run below: it counts a job across a SIGKILL and
# restart of tracerd (its status replies while a job with 3,000
# processes closes are counted, not timed)
suite "tracerd resilience" ./tests/resilience/run.sh build
# the parts ASan has something to look at (run.sh says what it leaves to
# the run above); alone, as netio: it counts a job across a SIGKILL and
# restart of tracerd
suite "tracerd resilience (ASan+UBSan)" ./tests/resilience/run.sh build-asan --memory
suite "analysis (own peak, run delay, state, flags)" ./tests/analysis/run.sh build
# CPU work (a compile, a fuzzer) while Slurm's SPANK suite waits for the
# scheduler.  The fuzzer gets 30 s in all here, 3 s for each of its 9
# targets, every one built and run on its whole seed corpus first (2-10
# small inputs: milliseconds), a crash failing the suite as before;
# `make fuzz` runs 60 s (FUZZ_SECONDS) for a longer search.
beside "fuzzing (30 s)" ./tests/fuzz/run.sh 30
# then the accounting suite, in the lane too: the SPANK suite's checks
# are over within about 40 s, after which it waits for its --time=1 job
# to be stopped at its limit (slurmctld looks at limits every 30 s: 60-90
# s after the job started), 50 s doing nothing.  Two clusters side by
# side share nothing: each its own munged (key and socket), slurmctld and
# slurmd ports (picked free when each starts; the SPANK suite's are bound
# by then), node names (the host's; tn1 and tn2), state, spool and log
# directories, tracerd, socket and pins; accounting (MariaDB on a port of
# its own, slurmdbd) and the ClickHouse lake (18711/18734) are the
# accounting suite's alone, and its cgroups slurm_tn1/tn2.  Its jobs run
# no sleep (the SPANK suite finds its own job's sleep by SLURM_JOB_ID, a
# number both clusters give).  Its comparisons (sacct against tracer,
# elapsed within 2 s) passed beside the fuzzer and the RPM build; here
# the SPANK suite beside it is mostly asleep.  (The RPM build went to the
# containers' lane: with it, this lane outlasted the SPANK suite on a
# loaded machine.)
beside "Slurm accounting (sacct against tracer, two nodes)" ./tests/slurmacct/run.sh build
start_beside
suite "Slurm SPANK plugin" ./tests/slurm/run.sh build
# tuneproof compares the elapsed times of its jobs: nothing beside it
end_beside
suite "tracer tune on a Snakemake pipeline (Slurm, memory enforced)" ./tests/tuneproof/run.sh build
# tuneaws compares its jobs' vCPU-seconds (vCPUs x elapsed) before and
# after tuning, as tuneproof: nothing beside it
suite "tracer tune on AWS Batch jobs (tracer-wrap standalone, cgroups, ECS metadata)" ./tests/tuneaws/run.sh build
# alone: its restart case counts a job's bytes across a SIGKILL and
# restart of tracerd, which failed once beside another suite on a loaded
# machine (a tool missing from the summary)
suite "network and block I/O" ./tests/netio/run.sh build
# Suites that each keep one core busy (about 1 CPU-second per second:
# one job, one python or tracer run after another) and the other idle,
# two at once.  Neither side measures time.  tracer-wrap's checks are
# counts and shares of CPU time: each tool's CPU against wait4's (CPU
# time is not stretched by a busy core), the wrapper's own CPU under 25%
# of one core (a busy core can only lower it), its metadata calls ended
# by their own timeouts within a 60 s deadline; its tracerd, pid
# namespaces and cgroups (tracer-wrap-PID) are its own, it makes no user
# and its metadata servers listen on ports the kernel gives them.  tune's
# checks are the memory its steps held (each process's peak, not a
# rate), the formats and the users' runs; it makes its own users
# (tracer-tu*).  tunelake's ClickHouse listens on 18741/18742 (its users
# are its own), delivery's on 18101/18124 and its collector on 18150-.
# delivery's status replies while a sink hangs are counted, not timed,
# its batching bound (inserts per second) only loosens as it slows, and
# its jobs' registrations may wait 2 s (client_timeout_ms=2000: a
# deadline, not a measure) where one takes milliseconds with
# tracer-wrap beside it (all four passed as paired here, 35 s, where
# one after the other took 60 s).
beside "tracer-wrap" ./tests/wrapper/run.sh build
start_beside
suite "tracer tune (real jobs, every format, snakemake, botocore, two users)" ./tests/tune/run.sh build
suite "tracer tune on the datalake (ClickHouse, root and a reader)" ./tests/tunelake/run.sh build
suite "delivery (spool, file, HTTP, ClickHouse)" ./tests/delivery/run.sh build
end_beside
# suites that start tracerd but no service, on ports of their own, and
# measure no time, beside those that mostly wait for a service
# (ClickHouse, Prometheus): two tracerds at once, each with its own
# socket, pins, state and jobs
# the daemon's own kernel tests: test_cgroup_live's memory bound does not
# hold with TSan's shadow memory, and it starts no thread
beside "daemon kernel tests (root, ThreadSanitizer)" ./tests/run-unit.sh build-tsan tests/kernel 'test_daemon_*'
beside "configuration (ThreadSanitizer)" ./tests/config/run.sh build-tsan
beside "kernel tests (root, ASan+UBSan)" ./tests/run-unit.sh build-asan tests/kernel
beside "BPF programs (ASan+UBSan loader)" ./build-asan/tests/bpf/test_bpf
beside "tracerd integration (ASan+UBSan)" ./tests/integration/run.sh build-asan
start_beside
suite "Prometheus metrics" ./tests/metrics/run.sh build
suite "tracer report" ./tests/report/run.sh build
suite "datalake reader (two users, tracerd --reader, ClickHouse)" ./tests/reader/run.sh build
suite "datalake schema versions (ClickHouse)" ./tests/datalake/run.sh build
suite "tracer sweep (ClickHouse, archive, users through tracerd)" ./tests/sweep/run.sh build
end_beside
# what runs tracerd's threads (run.sh says what it leaves to the run
# above); no status bound (its replies while a sink hangs are counted),
# but its jobs' registrations give up after 2 s on a tracerd that TSan
# slows: nothing beside it
suite "delivery (ThreadSanitizer)" ./tests/delivery/run.sh build-tsan --threads
# the demo's notes come from what its pipeline used: nothing beside it
suite "terminal report (80 columns, --wide)" ./tests/cli/terminal.sh build
suite "make demo's run, the README's sample" ./tests/cli/demo.sh build
# the same beside the suites that wait for podman, dockerd or chromium,
# after the RPM build, which shares nothing with any suite (a compile in
# build/rpm, no tracerd, port or user): CPU work while they wait, where
# this lane had time to spare (and the Slurm lane had none)
beside "RPM packaging" ./rpm/build.sh build/rpm
beside "GPUs (NVML test double)" ./tests/gpu/run.sh build
beside "configuration (--check-config, SIGHUP reload)" ./tests/config/run.sh build
beside "command lines (tracer, tracerd, tracer-wrap)" ./tests/cli/run.sh build
start_beside
suite "containers (busybox applets, podman)" ./tests/containers/run.sh build
suite "container tagging ownership" ./tests/containers/ownership.sh build
suite "root in a container is not root to tracerd (podman)" ./tests/containers/peers.sh build
suite "docker containers (private dockerd)" ./tests/containers/docker.sh build
suite "Apptainer/Singularity containers (starter mimic)" ./tests/containers/apptainer.sh build
suite "HTML report (headless chromium)" ./tests/html/run.sh build
end_beside

echo
echo "durations (seconds, the suite's CPU seconds, the machine's CPU busy share while it ran):"
printf '  %s\n' "${durations[@]}"
echo "total: $((SECONDS - start_all)) s, the suites' CPU $total_cpu s"
if [ ${#failed_suites[@]} -ne 0 ]; then
	echo "failed suites: ${failed_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
