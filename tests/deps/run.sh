#!/bin/bash
# run.sh - what scripts/install-deps.sh chooses to install, checked
# without changing the machine: its dry run (INSTALL_DEPS_DRY_RUN) against
# made-up dpkg databases (INSTALL_DEPS_ADMINDIR) and a PATH that holds
# only the commands it needs (and a made-up docker where a case wants
# one).  Docker's own docker-ce must never get docker.io installed over
# it.  Needs no root; part of `make check`.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib.sh"

TMP=$(mktemp -d /tmp/tracer-deps.XXXXXX) || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$TMP"' EXIT

# the commands the script runs, and nothing else (no docker)
mkdir -p "$TMP/bin"
for c in sh dpkg-query grep sed tr id; do
	p=$(command -v "$c") || { echo "FAIL: $c is not installed"; exit 1; }
	ln -s "$p" "$TMP/bin/$c"
done

# admindir NAME PACKAGE...: a dpkg database in which PACKAGEs are installed
admindir() {
	local d=$TMP/$1 p
	shift
	mkdir -p "$d/info" "$d/updates"
	: >"$d/status"
	for p in "$@"; do
		printf 'Package: %s\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n\n' "$p" >>"$d/status"
	done
	: >"$d/available"
	echo "$d"
}

# dry PATH ADMINDIR: the dry run's output for `make test`'s packages
dry() {
	PATH=$1 INSTALL_DEPS_DRY_RUN=1 INSTALL_DEPS_ADMINDIR=$2 sh "$TOP/scripts/install-deps.sh" test 2>&1
}
would_install() { grep '^install-deps: would install' <<<"$1" | grep -qw -- "$2"; }

# nothing installed: docker.io is among what it would install (the check
# below can see it)
out=$(dry "$TMP/bin" "$(admindir none)")
if would_install "$out" docker.io && would_install "$out" runc; then
	pass "a bare machine: docker.io and runc would be installed"
else
	fail "a bare machine: docker.io or runc missing from what would be installed"
	echo "$out" | sed 's/^/    /'
fi

# Docker's own packages: docker.io is skipped, and said so
for rival in docker-ce docker-ce-cli moby-engine; do
	out=$(dry "$TMP/bin" "$(admindir "$rival" "$rival")")
	if ! would_install "$out" docker.io && grep -qx "install-deps: docker.io skipped: $rival is installed" <<<"$out" &&
		would_install "$out" podman; then
		pass "$rival installed: docker.io is not installed over it"
	else
		fail "$rival installed: docker.io would still be installed"
		echo "$out" | sed 's/^/    /'
	fi
done

# containerd.io (Docker's) brings its own runc
out=$(dry "$TMP/bin" "$(admindir containerd containerd.io)")
if ! would_install "$out" runc && grep -qx "install-deps: runc skipped: containerd.io is installed" <<<"$out"; then
	pass "containerd.io installed: runc is not installed over it"
else
	fail "containerd.io installed: runc would still be installed"
	echo "$out" | sed 's/^/    /'
fi

# a docker client alone from elsewhere (a static CLI for a remote
# daemon): the suites need a dockerd, docker.io is installed
mkdir -p "$TMP/docker-cli" "$TMP/docker-bin"
printf '#!/bin/sh\nexit 0\n' >"$TMP/docker-cli/docker"
chmod 0755 "$TMP/docker-cli/docker"
out=$(dry "$TMP/bin:$TMP/docker-cli" "$(admindir none4)")
if would_install "$out" docker.io; then
	pass "a docker client alone on PATH (no dockerd): docker.io would be installed"
else
	fail "a docker client alone on PATH: docker.io would not be installed"
	echo "$out" | sed 's/^/    /'
fi
# docker and dockerd from elsewhere (a static tarball), no package of them
cp "$TMP/docker-cli/docker" "$TMP/docker-bin/docker"
cp "$TMP/docker-cli/docker" "$TMP/docker-bin/dockerd"
out=$(dry "$TMP/bin:$TMP/docker-bin" "$(admindir none2)")
if ! would_install "$out" docker.io && grep -qx "install-deps: docker.io skipped: $TMP/docker-bin/dockerd is already installed" <<<"$out"; then
	pass "docker and dockerd on PATH: docker.io is not installed"
else
	fail "docker and dockerd on PATH: docker.io would still be installed"
	echo "$out" | sed 's/^/    /'
fi

# every package the bare machine lacked, installed: nothing to do, and
# nothing said
all=$(dry "$TMP/bin" "$(admindir none3)" | sed -n 's/^install-deps: would install //p' | tr ' ' '\n' | sort -u)
out=$(dry "$TMP/bin" "$(admindir all $all)")
if [ -z "$out" ]; then
	pass "everything installed: nothing would be installed"
else
	fail "everything installed: it still says"
	echo "$out" | sed 's/^/    /'
fi
finish
