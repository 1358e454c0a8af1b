# lib.sh - what the container suites share: the busybox image they import
# into podman or docker (no registry).  Sourced after tests/lib.sh; uses
# $BUILD and $TMP.

# busybox_rootfs_tar BUSYBOX TAR: a root filesystem in $TMP/rootfs (busybox
# with applet links, tracer-wrap and the libraries it links, the mount
# points a runtime needs) packed into TAR for `podman/docker import`
busybox_rootfs_tar() {
	local busybox=$1 tar=$2 r=$TMP/rootfs a lib
	mkdir -p "$r/bin" "$r/run/tracer" "$r/tmp" "$r/proc" "$r/sys" "$r/dev" "$r/etc" || return 1
	cp "$busybox" "$r/bin/busybox" || return 1
	for a in sh gzip seq md5sum sleep cat; do ln -s busybox "$r/bin/$a" || return 1; done
	cp "$BUILD/tracer-wrap" "$r/bin/tracer-wrap" || return 1
	for lib in $(ldd "$BUILD/tracer-wrap" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
		mkdir -p "$r$(dirname "$lib")" && cp -L "$lib" "$r$lib" || return 1
	done
	tar -C "$r" -cf "$tar" .
}
