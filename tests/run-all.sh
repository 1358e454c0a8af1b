#!/bin/bash
# run-all.sh - every suite of `make test`, in order; each runs even when
# an earlier one failed.  Exits non-zero if anything failed, and ends with
# each suite's duration and the total of the checks of all suites.
set -u
cd "$(dirname "$0")/.."
total_pass=0
total_fail=0
failed_suites=()
durations=()
start_all=$SECONDS

suite() {
	name=$1; shift
	echo
	echo "######## $name"
	log=$(mktemp /tmp/tracer-suite.XXXXXX)
	t0=$SECONDS
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	durations+=("$(printf '%5d s  %s' $((SECONDS - t0)) "$name")")
	p=$(grep -c '^PASS' "$log"); f=$(grep -c '^FAIL' "$log")
	rm -f "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	# a CUnit binary prints its own table, not PASS lines: it counts as one
	if [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then p=1; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	[ "$rc" -ne 0 ] && failed_suites+=("$name")
	echo "######## $name: rc=$rc, $p passed, $f failed"
}

suite "unit tests" ./tests/run-unit.sh build
suite "unit tests (ASan+UBSan)" ./tests/run-unit.sh build-asan
suite "kernel tests (root)" ./tests/run-unit.sh build tests/kernel
suite "kernel tests (root, ASan+UBSan)" ./tests/run-unit.sh build-asan tests/kernel
suite "BPF programs" ./build/tests/bpf/test_bpf
suite "BPF programs (ASan+UBSan loader)" ./build-asan/tests/bpf/test_bpf
suite "tracerd integration" ./tests/integration/run.sh build
suite "tracerd integration (ASan+UBSan)" ./tests/integration/run.sh build-asan
suite "shared node (users, socket, identity)" ./tests/hardening/run.sh build
suite "privacy (each user sees only their own jobs)" ./tests/privacy/run.sh build
suite "fuzzing (60 s)" ./tests/fuzz/run.sh 60
suite "tracerd resilience" ./tests/resilience/run.sh build
suite "tracerd resilience (ASan+UBSan)" ./tests/resilience/run.sh build-asan
suite "analysis (own peak, run delay, state, flags)" ./tests/analysis/run.sh build
suite "Slurm SPANK plugin" ./tests/slurm/run.sh build
suite "Slurm accounting (sacct against tracer, two nodes)" ./tests/slurmacct/run.sh build
suite "tracer tune on a Snakemake pipeline (Slurm, memory enforced)" ./tests/tuneproof/run.sh build
suite "tracer-wrap" ./tests/wrapper/run.sh build
suite "Prometheus metrics" ./tests/metrics/run.sh build
suite "tracer report" ./tests/report/run.sh build
suite "network and block I/O" ./tests/netio/run.sh build
suite "GPUs (NVML test double)" ./tests/gpu/run.sh build
suite "delivery (spool, file, HTTP, ClickHouse)" ./tests/delivery/run.sh build
suite "datalake reader (two users, tracerd --reader, ClickHouse)" ./tests/reader/run.sh build
suite "datalake schema versions (ClickHouse)" ./tests/datalake/run.sh build
suite "configuration (--check-config, SIGHUP reload)" ./tests/config/run.sh build
suite "tracer tune (real jobs, every format, snakemake, botocore, two users)" ./tests/tune/run.sh build
suite "tracer tune on the datalake (ClickHouse, root and a reader)" ./tests/tunelake/run.sh build
# the daemon's own kernel tests: test_cgroup_live's memory bound does not
# hold with TSan's shadow memory, and it starts no thread
suite "daemon kernel tests (root, ThreadSanitizer)" ./tests/run-unit.sh build-tsan tests/kernel 'test_daemon_*'
suite "delivery (ThreadSanitizer)" ./tests/delivery/run.sh build-tsan
suite "configuration (ThreadSanitizer)" ./tests/config/run.sh build-tsan
suite "command lines (tracer, tracerd, tracer-wrap)" ./tests/cli/run.sh build
suite "terminal report (80 columns, --wide)" ./tests/cli/terminal.sh build
suite "make demo's run, the README's sample" ./tests/cli/demo.sh build
suite "man pages" ./tests/man/run.sh build
suite "containers (busybox applets, podman)" ./tests/containers/run.sh build
suite "container tagging ownership" ./tests/containers/ownership.sh build
suite "root in a container is not root to tracerd (podman)" ./tests/containers/peers.sh build
suite "docker containers (private dockerd)" ./tests/containers/docker.sh build
suite "Apptainer/Singularity containers (starter mimic)" ./tests/containers/apptainer.sh build
suite "HTML report (headless chromium)" ./tests/html/run.sh build
suite "RPM packaging" ./rpm/build.sh build/rpm

echo
echo "durations:"
printf '  %s\n' "${durations[@]}"
echo "total: $((SECONDS - start_all)) s"
if [ ${#failed_suites[@]} -ne 0 ]; then
	echo "failed suites: ${failed_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
