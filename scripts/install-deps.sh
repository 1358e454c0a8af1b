#!/bin/sh
# install-deps.sh [build|test] - install the Debian/Ubuntu packages that
# are missing: `build` (the default, `make deps`) what `make` needs,
# `test` (`make test`) that and what the test suites, the demo and the
# benchmarks run.  RHEL names are in README.md (Installation).
set -eu

# llvm: llvm-strip (the Makefile strips DWARF from the BPF objects);
# libcunit1-dev: `make` builds the unit tests too
BUILD_PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config \
libslurm-dev libhwloc-dev libcjson-dev libcurl4-openssl-dev libcunit1-dev libmicrohttpd-dev"

# one line per suite or tool is the easiest to merge
TEST_PKGS="python3 curl util-linux procps iproute2 gzip bc strace patchelf fio
slurm-wlm munge
bwa samtools minimap2 bcftools
rpm rpm2cpio cpio rpmlint
mandoc bsdextrautils
python3-jsonschema prometheus
clickhouse-server clickhouse-client
libclang-rt-14-dev
systemd
podman runc busybox-static docker.io
chromium"

case "${1:-build}" in
build) PKGS=$BUILD_PKGS ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
*) echo "usage: install-deps.sh [build|test]" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
