#!/bin/bash
# device_run.sh [BUILD] - the per-switch bench and the real-GPU check on a
# lent machine that has only the repository tree and the built binaries:
# no compiler, no package registry, an unknown distribution.  Prints
# everything to stdout:
#   1. the machine (CPUs, kernel, cgroup v2, BTF);
#   2. bench/switch.sh with JOBS=16 (nproc when below 16) and settings
#      short enough for about 3 minutes on 16 cores (override PAIRS,
#      TRIPS, STORM, STATS_REPS, BUDGET_S, JOBS);
#   3. bench/exit_tail.sh: CPU a 300 MiB process spends after
#      sched_process_exit;
#   4. tests/gpu/real.sh (exits 0 saying so where there is no GPU).
# Needs root, bash, awk and coreutils.  Where the shared libraries of
# tracerd and tracer are not installed, pack them beforehand on the build
# machine:
#   bench/device_run.sh --pack DIR [BUILD]
# copies into DIR only what this script runs (tracerd, tracer, the static
# bench and test helpers) and the shared libraries tracerd and tracer
# load (all but glibc's), under DIR/libs; then run
#   bench/device_run.sh DIR
# on the machine (those of DIR/libs that the machine lacks go on
# LD_LIBRARY_PATH).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)

# --pack DIR [BUILD]: a small BUILD for a machine without the libraries
pack() {
	local out=$1 build=${2:-$TOP/build} f lib
	for f in tracerd tracer bench/switch_floor tests/helpers/pingpong tests/helpers/spawner \
		tests/helpers/tiny tests/helpers/touchmem; do
		[ -x "$build/$f" ] || { echo "device_run: $build/$f missing (make all)" >&2; return 1; }
		mkdir -p "$out/$(dirname "$f")" && cp "$build/$f" "$out/$f" || return 1
	done
	mkdir -p "$out/libs" || return 1
	# every library the loader resolves for them, but glibc's own
	for lib in $(ldd "$build/tracerd" "$build/tracer" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u); do
		case $(basename "$lib") in
		libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux*) continue ;;
		esac
		cp -L "$lib" "$out/libs/" || return 1
	done
	echo "packed into $out: $(du -sh "$out" | cut -f1)"
}
if [ "${1:-}" = --pack ]; then
	[ -n "${2:-}" ] || { echo "usage: device_run.sh --pack DIR [BUILD]" >&2; exit 2; }
	pack "$2" "${3:-}"
	exit
fi

BUILD=$(cd "${1:-$TOP/build}" && pwd) || exit 1
LIBDIR=$(mktemp -d /tmp/tracer-devlibs.XXXXXX) || exit 1
trap 'rm -rf "$LIBDIR"' EXIT
# only the packed libraries this machine lacks go on LD_LIBRARY_PATH:
# the machine's own stay in use by everything else (python3 and torch)
missing_libs() {
	LD_LIBRARY_PATH=$LIBDIR ldd "$BUILD/tracerd" "$BUILD/tracer" 2>/dev/null |
		awk '$2 == "=>" && $3 == "not" { print $1 }' | sort -u
}
for _ in 1 2 3 4 5 6; do # a library may need another: a few rounds
	missing=$(missing_libs)
	[ -n "$missing" ] || break
	for lib in $missing; do
		[ -f "$BUILD/libs/$lib" ] || { echo "FAIL: $lib: not on this machine, not packed (bench/device_run.sh --pack)"; exit 1; }
		ln -sf "$BUILD/libs/$lib" "$LIBDIR/$lib"
	done
done
taken=$(cd "$LIBDIR" && echo *)
if [ "$taken" != '*' ]; then
	echo "libraries taken from $BUILD/libs: $taken"
	export TRACER_LIBS=$LIBDIR
	export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
rc=0

echo "== the machine"
echo "CPUs: $(nproc) ($(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo))"
echo "kernel: $(uname -r)"
echo "cgroup: $(awk '$3 == "cgroup2" { v2 = v2 " " $2 } $3 == "cgroup" { v1++ }
	END { printf "v2 at%s, %d v1 hierarchies", (v2 == "" ? " none" : v2), v1 }' /proc/mounts)"
if [ -e /sys/kernel/btf/vmlinux ]; then echo "BTF: yes"; else echo "BTF: /sys/kernel/btf/vmlinux missing (tracerd needs it)"; fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in tracerd tracer; do
	missing=$(ldd "$BUILD/$b" 2>/dev/null | grep 'not found')
	[ -z "$missing" ] || { echo "FAIL: $b: shared libraries not found (bench/device_run.sh --pack):"; echo "$missing"; exit 1; }
done

echo
echo "== per-switch hook (bench/switch.sh)"
n=$(nproc)
JOBS=${JOBS:-$((n < 16 ? n : 16))} PAIRS=${PAIRS:-7} TRIPS=${TRIPS:-100000} STORM=${STORM:-500} \
	STATS_REPS=${STATS_REPS:-3} BUDGET_S=${BUDGET_S:-150} \
	"$TOP/bench/switch.sh" "$BUILD" 2>&1 || { echo "FAIL: bench/switch.sh"; rc=1; }

echo
echo "== CPU after sched_process_exit (bench/exit_tail.sh)"
"$TOP/bench/exit_tail.sh" "$BUILD" 2>&1 || { echo "FAIL: bench/exit_tail.sh"; rc=1; }

echo
echo "== real GPU (tests/gpu/real.sh)"
"$TOP/tests/gpu/real.sh" "$BUILD" 2>&1 || { echo "FAIL: tests/gpu/real.sh"; rc=1; }
exit $rc
