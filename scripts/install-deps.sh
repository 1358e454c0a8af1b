#!/bin/sh
# install-deps.sh - install the Debian/Ubuntu packages tracer builds and
# tests with, only when something is missing.  RHEL names are listed in
# README.md (Installation).
set -eu

# llvm: llvm-strip (the Makefile strips DWARF from the BPF objects)
PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config \
libslurm-dev libhwloc-dev libcjson-dev libcurl4-openssl-dev libcunit1-dev \
slurm-wlm munge python3 curl util-linux procps iproute2 \
bwa samtools minimap2 bcftools gzip bc strace patchelf rpm \
python3-jsonschema libmicrohttpd-dev prometheus clickhouse-server clickhouse-client mandoc fio \
podman runc busybox-static"

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
