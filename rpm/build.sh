#!/bin/sh
# build.sh OUTDIR - build the tracer and tracer-slurm RPMs from the
# committed tree (git archive) into OUTDIR, and check what they hold.
# On a non-RPM distribution the BuildRequires cannot be checked: --nodeps.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:-$TOP/build/rpm}" && cd "${1:-$TOP/build/rpm}" && pwd)
VERSION=$(sed -n 's/^Version: *//p' "$TOP/rpm/tracer.spec")
nodeps=
command -v dnf >/dev/null 2>&1 || command -v yum >/dev/null 2>&1 || nodeps=--nodeps

cd "$TOP"
# the spec's build runs from the tarball: it must hold the work tree as it is
git ls-files -z --cached --others --exclude-standard | \
	tar --null -T - --transform "s,^,tracer-$VERSION/," -czf "$OUT/tracer-$VERSION.tar.gz"
rpmbuild -ta $nodeps --define "_topdir $OUT/top" "$OUT/tracer-$VERSION.tar.gz" >"$OUT/rpmbuild.log" 2>&1 || {
	echo "FAIL: rpmbuild (log: $OUT/rpmbuild.log)"; tail -20 "$OUT/rpmbuild.log"; exit 1; }
rc=0
for want in /usr/sbin/tracerd /usr/bin/tracer /usr/bin/tracer-wrap /etc/tracer/tracer.conf \
	/etc/tracer/tools.rules /usr/lib/systemd/system/tracerd.service; do
	if rpm -qlp "$OUT"/top/RPMS/*/tracer-"$VERSION"-*.rpm 2>/dev/null | grep -qx "$want"; then
		echo "PASS: tracer RPM holds $want"
	else
		echo "FAIL: tracer RPM lacks $want"; rc=1
	fi
done
for want in spank_tracer.so plugstack.conf.d/tracer.conf; do
	if rpm -qlp "$OUT"/top/RPMS/*/tracer-slurm-"$VERSION"-*.rpm 2>/dev/null | grep -q "$want\$"; then
		echo "PASS: tracer-slurm RPM holds $want"
	else
		echo "FAIL: tracer-slurm RPM lacks $want"; rc=1
	fi
done
exit $rc
