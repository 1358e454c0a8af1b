#!/bin/sh
# install-deps.sh [build|demo|test|bench] - install the Debian/Ubuntu
# packages that are missing: `build` (the default, `make deps`) what `make`
# needs, `demo` (`make demo`) that and the tools of the demo pipeline, `test`
# (`make test`) that and what the test suites and the benchmarks run,
# `bench` (`make bench-peers`) that and the collectors tracer is compared
# with (bench/peers.sh).
# RHEL names are in docs/install.md.
#
# It never replaces what the machine has: a package whose command is
# already there from elsewhere (docker from docker-ce or moby, ...) is
# skipped, and so is one whose installation would remove an installed
# package; each skip is said.  Services that packages bring (munge,
# slurmctld, slurmdbd, mariadb, prometheus, clickhouse-server, docker, acct,
# prometheus-process-exporter, sysstat) are not started:
# the suites start their own, and nothing is left running that the
# machine did not run before.
#
# INSTALL_DEPS_DRY_RUN=1 changes nothing and needs no root: it says what
# it would skip and install ("install-deps: would install P..."), without
# asking apt.  INSTALL_DEPS_ADMINDIR=DIR reads the installed packages from
# DIR/status instead of dpkg's own database (tests/deps/run.sh checks the
# choices with made-up ones).
set -eu
DRY_RUN=${INSTALL_DEPS_DRY_RUN:-}
ADMINDIR=${INSTALL_DEPS_ADMINDIR:-}

# llvm: llvm-strip (the Makefile strips DWARF from the BPF objects);
# libcunit1-dev: `make` builds the unit tests too; cppcheck: make check
BUILD_PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config \
libslurm-dev libhwloc-dev libcjson-dev libcurl4-openssl-dev libcunit1-dev libmicrohttpd-dev \
cppcheck"

# contrib/demo/pipeline.sh: python3, bwa, samtools; gzip, awk, sort, dd
# are in every Debian system; util-linux (RHEL: util-linux): taskset, which
# pins the demo's pipeline to one CPU of its allocation
DEMO_PKGS="python3 bwa samtools gzip util-linux"

# one line per suite or tool is the easiest to merge; tests/tune: snakemake
# (RHEL: none, pip install snakemake) and python3-botocore (RHEL:
# python3-botocore) for the AWS Batch model (tests/tuneaws too: with bwa,
# samtools, gzip, util-linux, all in this list), groovy (RHEL: none, SDKMAN)
# to compile the Nextflow configuration
TEST_PKGS="python3 curl util-linux procps iproute2 gzip bc strace patchelf fio
slurm-wlm munge
slurmdbd mariadb-server
bwa samtools minimap2 bcftools
rpm rpm2cpio cpio rpmlint
mandoc bsdextrautils
python3-jsonschema prometheus
clickhouse-server clickhouse-client
libclang-rt-14-dev
systemd
podman runc busybox-static docker.io
chromium
snakemake python3-botocore groovy"

# bench/peers.sh: the collectors sites run today (RHEL: snakemake from
# bioconda or pip, python3-psutil, sysstat, psacct, process-exporter from
# its release tarball, prometheus from its tarball; Slurm as in `test`)
BENCH_PKGS="snakemake python3-psutil sysstat acct prometheus-process-exporter"

case "${1:-build}" in
build) PKGS=$BUILD_PKGS ;;
demo) PKGS="$BUILD_PKGS $DEMO_PKGS" ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
bench) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" ;;
*) echo "usage: install-deps.sh [build|demo|test|bench]" >&2; exit 2 ;;
esac

# installed PACKAGE: dpkg has it installed (one dpkg-query for all)
INSTALLED=" $(dpkg-query ${ADMINDIR:+--admindir="$ADMINDIR"} -W -f='${Package} ${Status}\n' 2>/dev/null |
	sed -n 's/ install ok installed$//p' | tr '\n' ' ') "
installed() {
	case $INSTALLED in *" $1 "*) return 0 ;; esac
	return 1
}

# rivals_of PACKAGE: the packages from elsewhere that provide the same
# thing and conflict with it: Docker's own docker-ce (and moby's) for
# docker.io, whose runc comes with containerd.io
rivals_of() {
	case $1 in
	docker.io) echo "docker-ce docker-ce-cli moby-engine moby-cli" ;;
	runc) echo "containerd.io" ;;
	*) echo "" ;;
	esac
}

# command_of PACKAGE: the command a package provides that another package
# may provide as well (docker-ce's dockerd, a tarball's clickhouse).  For
# docker.io it is the daemon the container suites start: a docker client
# alone (a static CLI that talks to a remote daemon) does not replace it
command_of() {
	case $1 in
	docker.io) echo dockerd ;;
	podman) echo podman ;;
	runc) echo runc ;;
	prometheus) echo prometheus ;;
	snakemake) echo snakemake ;;
	clickhouse-server | clickhouse-client) echo clickhouse ;;
	chromium) echo chromium ;;
	*) echo "" ;;
	esac
}

missing=""
for p in $PKGS; do
	installed "$p" && continue
	rival=""
	for r in $(rivals_of "$p"); do
		installed "$r" && { rival=$r; break; }
	done
	if [ -n "$rival" ]; then
		echo "install-deps: $p skipped: $rival is installed"
		continue
	fi
	c=$(command_of "$p")
	if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1; then
		echo "install-deps: $p skipped: $(command -v "$c") is already installed"
		continue
	fi
	missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ -n "$DRY_RUN" ]; then
	echo "install-deps: would install$missing"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# a package whose installation would remove one the machine has is left out
keep=""
for p in $missing; do
	removes=$(apt-get install -s -q --no-install-recommends "$p" 2>/dev/null | sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr '\n' ' ')
	if [ -n "$removes" ]; then
		echo "install-deps: $p skipped: installing it would remove $removes"
		continue
	fi
	keep="$keep $p"
done
[ -z "$keep" ] && exit 0
echo "install-deps: installing$keep"
# no service is started by the installation (policy-rc.d, as debootstrap
# and container images do), unless the machine has its own policy
policy=/usr/sbin/policy-rc.d

if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $keep
exit 0
