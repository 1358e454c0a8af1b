#!/bin/bash
# build.sh OUTDIR - build the tracer, tracer-common and tracer-slurm RPMs
# from the committed tree (git archive) into OUTDIR, check what they hold,
# what they require (tracer-slurm must not bring tracerd onto login
# nodes) and how they were built, and run rpmlint on the spec and the
# packages.
#
# On a distribution without dnf or yum (Debian), the BuildRequires cannot
# be checked (--nodeps), and what Fedora's and RHEL's rpm configuration
# provides (systemd-rpm-macros, hardening flags, /usr/share/doc/NAME, man
# pages gzipped) comes from rpm/macros.debian; the spec stays RHEL's.
# rpmlint runs with Fedora's policy (rpm/rpmlint.toml).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:-$TOP/build/rpm}" && cd "${1:-$TOP/build/rpm}" && pwd)
VERSION=$(sed -n 's/^Version: *//p' "$TOP/rpm/tracer.spec")
SPEC=$TOP/rpm/tracer.spec
rc=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; rc=1; }
for c in rpmbuild rpm rpmlint readelf git; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is not installed"; exit 1; }
done

args=(--define "_topdir $OUT/top")
if ! command -v dnf >/dev/null 2>&1 && ! command -v yum >/dev/null 2>&1; then
	args+=(--nodeps --load "$TOP/rpm/macros.debian")
fi

cd "$TOP"
rm -rf "$OUT/top"
# the spec's build runs from the tarball: it must hold the work tree as it is
git ls-files -z --cached --others --exclude-standard | \
	tar --null -T - --transform "s,^,tracer-$VERSION/," -czf "$OUT/tracer-$VERSION.tar.gz"
if rpmbuild -ta "${args[@]}" "$OUT/tracer-$VERSION.tar.gz" >"$OUT/rpmbuild.log" 2>&1; then
	pass "rpmbuild -ta built the packages"
else
	echo "FAIL: rpmbuild (log: $OUT/rpmbuild.log)"; tail -20 "$OUT/rpmbuild.log"; exit 1
fi
RPM_MAIN=$(ls "$OUT"/top/RPMS/*/tracer-"$VERSION"-*.rpm)
RPM_SLURM=$(ls "$OUT"/top/RPMS/*/tracer-slurm-"$VERSION"-*.rpm)
RPM_COMMON=$(ls "$OUT"/top/RPMS/*/tracer-common-"$VERSION"-*.rpm)

# holds PACKAGE PATH: the package lists PATH
holds() { rpm -qlp "$1" 2>/dev/null | grep -qx "$2"; }
for want in /usr/sbin/tracerd /usr/lib/systemd/system/tracerd.service \
	/var/lib/tracer /usr/share/licenses/tracer/LICENSE /usr/share/doc/tracer/README.md \
	/usr/share/man/man8/tracerd.8.gz; do
	holds "$RPM_MAIN" "$want" && pass "tracer RPM holds $want" || fail "tracer RPM lacks $want"
done
for want in /usr/bin/tracer /usr/bin/tracer-wrap /etc/tracer /etc/tracer/tracer.conf \
	/etc/tracer/tools.rules /usr/share/man/man1/tracer.1.gz /usr/share/man/man1/tracer-wrap.1.gz \
	/usr/share/man/man5/tracer.conf.5.gz /usr/share/tracer/clickhouse/migrations/001_v1.sql \
	/usr/share/tracer/clickhouse/migrations/002_v2.sql; do
	holds "$RPM_COMMON" "$want" && pass "tracer-common RPM holds $want" || fail "tracer-common RPM lacks $want"
done
for want in /usr/lib64/slurm/spank_tracer.so /etc/slurm/plugstack.conf.d \
	/etc/slurm/plugstack.conf.d/tracer.conf /usr/share/man/man8/spank_tracer.8.gz \
	/usr/bin/tracer-mail /usr/share/man/man8/tracer-mail.8.gz; do
	holds "$RPM_SLURM" "$want" && pass "tracer-slurm RPM holds $want" || fail "tracer-slurm RPM lacks $want"
done

# the configuration stays %config(noreplace): an upgrade keeps an edited
# file and puts the new default beside it (FILE.rpmnew)
noreplace() {
	local f
	for f in /etc/tracer/tracer.conf /etc/tracer/tools.rules; do
		rpm -qp --configfiles "$RPM_COMMON" 2>/dev/null | grep -qx "$f" ||
			{ echo "$f is not a configuration file of tracer-common"; return 1; }
	done
	rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$RPM_COMMON" 2>/dev/null |
		grep -q '^cn.* /etc/tracer/tracer.conf$' || { echo "tracer.conf is not noreplace"; return 1; }
}
noreplace && pass "tracer-common: /etc/tracer files are %config(noreplace)" || fail "%config(noreplace)"

# which package goes where: login nodes take tracer-slurm and tracer-common
# without the daemon; compute nodes tracer, which brings tracer-common
provides_of() { rpm -qp --provides "$@" 2>/dev/null | awk '{print $1}'; }
slurm_without_daemon() {
	local req hit
	req=$(rpm -qp --requires "$RPM_SLURM" 2>/dev/null)
	[ -n "$req" ] || { echo "no requirements read from $RPM_SLURM"; return 1; }
	# any capability of the daemon package, or a file of it
	hit=$(grep -Fxf <(provides_of "$RPM_MAIN"; rpm -qlp "$RPM_MAIN") <(awk '{print $1}' <<<"$req"))
	[ -z "$hit" ] || { echo "tracer-slurm requires $hit (the daemon's package)"; return 1; }
	grep -qE '^tracer(\(|$| )' <<<"$req" && { echo "tracer-slurm requires tracer: $req"; return 1; }
	return 0
}
slurm_without_daemon && pass "tracer-slurm does not require tracer (no tracerd on login nodes)" ||
	{ fail "tracer-slurm requires the daemon"; rpm -qp --requires "$RPM_SLURM" | sed 's/^/    /'; }
main_brings_common() {
	rpm -qp --requires "$RPM_MAIN" 2>/dev/null | grep -qE "^tracer-common(\(x86-64\))? = $VERSION-"
}
main_brings_common && pass "tracer requires tracer-common of the same version (the client on compute nodes)" ||
	{ fail "tracer's requirement on tracer-common"; rpm -qp --requires "$RPM_MAIN" | sed 's/^/    /'; }

owned_dirs() {
	local d out
	out=$(rpm -qlvp "$RPM_MAIN" "$RPM_COMMON" "$RPM_SLURM" 2>/dev/null)
	for d in /etc/tracer /var/lib/tracer /etc/slurm/plugstack.conf.d; do
		grep -q "^d.* $d\$" <<<"$out" || { echo "$d is not a directory of the packages"; return 1; }
	done
}
owned_dirs && pass "the packages own /etc/tracer, /var/lib/tracer and plugstack.conf.d" ||
	fail "directories owned"
plugstack_bare() {
	local line
	line=$(rpm2cpio "$RPM_SLURM" | cpio -i --quiet --to-stdout ./etc/slurm/plugstack.conf.d/tracer.conf |
		grep -v '^#' | grep .)
	[ "$line" = "optional spank_tracer.so socket=/run/tracer/tracerd.sock timeout_ms=200" ] ||
		{ echo "plugstack line: $line"; return 1; }
}
plugstack_bare && pass "the plugstack line names the plugin bare (found in PluginDir)" ||
	fail "plugstack line"

slurm_major=$(awk '$2 == "SLURM_VERSION_NUMBER" {print $3}' /usr/include/slurm/slurm_version.h |
	{ read -r n; printf '%d.%02d' $((n >> 16 & 255)) $((n >> 8 & 255)); })
slurm_req() { rpm -qp --requires "$RPM_SLURM" 2>/dev/null | grep -qx "(slurm >= $slurm_major with slurm < .*)"; }
slurm_req && pass "tracer-slurm requires Slurm $slurm_major, the release it was built against" ||
	{ fail "tracer-slurm's Slurm requirement"; rpm -qp --requires "$RPM_SLURM" | sed 's/^/    /'; }
no_lib_requires() {
	local r
	r=$(rpm -qp --requires "$RPM_MAIN" "$RPM_COMMON" 2>/dev/null | grep -E '^(libbpf|cjson|hwloc|hwloc-libs|libcurl|libmicrohttpd)( |$)')
	[ -z "$r" ] || { echo "explicit: $r"; return 1; }
}
no_lib_requires && pass "no explicit library Requires (sonames generated by rpm)" || fail "library Requires"
scriptlets() {
	local s
	s=$(rpm -qp --scripts "$RPM_MAIN" 2>/dev/null)
	grep -q "systemctl --no-reload preset tracerd.service\|systemd-update-helper install-system-units tracerd.service" <<<"$s" &&
		grep -q "disable --now tracerd.service\|remove-system-units tracerd.service" <<<"$s" &&
		grep -q "try-restart tracerd.service\|mark-restart-system-units tracerd.service" <<<"$s" ||
		{ echo "$s"; return 1; }
}
scriptlets && pass "systemd scriptlets: preset on install, disable on removal, restart on upgrade" ||
	fail "systemd scriptlets"

# the build: only what is installed, with the distribution's flags
only_installed_built() {
	! grep -E -- ' -static |build/tests/|-lcunit' "$OUT/rpmbuild.log" | head -5 | grep . ||
		{ echo "(test binaries built by the spec)"; return 1; }
}
only_installed_built && pass "%build and %install build no test binary (no -static, no CUnit)" ||
	fail "test binaries built"
flags_used() {
	local dir b
	dir=$(mktemp -d)
	(cd "$dir" && for r in "$RPM_MAIN" "$RPM_COMMON" "$RPM_SLURM"; do rpm2cpio "$r" | cpio -idu --quiet; done)
	for b in usr/sbin/tracerd usr/bin/tracer usr/bin/tracer-wrap usr/bin/tracer-mail \
		usr/lib64/slurm/spank_tracer.so; do
		readelf -d "$dir/$b" | grep -q 'BIND_NOW\|FLAGS.*NOW' || { echo "$b: not linked with -z now"; rm -rf "$dir"; return 1; }
		# -D_FORTIFY_SOURCE=2 of the distribution's CFLAGS: __snprintf_chk and friends
		readelf -s --wide "$dir/$b" | grep -q '_chk@' || { echo "$b: not built with _FORTIFY_SOURCE"; rm -rf "$dir"; return 1; }
	done
	rm -rf "$dir"
}
flags_used && pass "the distribution's CFLAGS and LDFLAGS reach every binary (_FORTIFY_SOURCE, -z now)" ||
	fail "distribution flags"

# rpmlint: no error on the spec nor on the packages
lint() {
	local out
	out=$(rpmlint -c "$TOP/rpm/rpmlint.toml" "$@" 2>&1)
	echo "$out" | sed 's/^/    /'
	grep -q ' 0 errors' <<<"$out" && ! grep -q ': E: ' <<<"$out"
}
lint "$SPEC" && pass "rpmlint tracer.spec: no error" || fail "rpmlint tracer.spec"
lint "$RPM_MAIN" "$RPM_COMMON" "$RPM_SLURM" && pass "rpmlint on the packages: no error" || fail "rpmlint on the packages"
exit $rc
