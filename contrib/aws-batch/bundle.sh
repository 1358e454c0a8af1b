#!/bin/bash
# bundle.sh TRACER_WRAP OUTDIR - make tracer-wrap self-contained for any
# x86-64 or arm64 Linux image: OUTDIR/bin/tracer-wrap plus OUTDIR/lib/
# with the loader and every library it needs (libcurl and its own
# dependencies too, loaded only for metadata look-ups and the HTTP sink).
# The copy's interpreter and RPATH point into OUTDIR's final place,
# /opt/tracer by default (PREFIX=...), so the image's own libraries are
# never used by the wrapper and never changed for the job.  Needs patchelf.
set -euo pipefail
src=${1:?usage: bundle.sh path/to/tracer-wrap OUTDIR}
out=${2:?usage: bundle.sh path/to/tracer-wrap OUTDIR}
prefix=${PREFIX:-/opt/tracer}
command -v patchelf >/dev/null || { echo "bundle.sh: patchelf is needed (apt-get install patchelf)" >&2; exit 1; }

mkdir -p "$out/bin" "$out/lib"
cp "$src" "$out/bin/tracer-wrap"
libs() { ldd "$1" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}'; }
{
	libs "$src"
	# dlopen'ed on demand: libcurl and what it pulls in
	# awk reads to the end: leaving early would kill ldconfig with
	# SIGPIPE, which pipefail turns into a failure
	curl=$(ldconfig -p | awk '/libcurl\.so\.4 / && !found {print $NF; found = 1}')
	if [ -n "$curl" ]; then echo "$curl"; libs "$curl"; fi
} | sort -u | while read -r lib; do
	cp -L "$lib" "$out/lib/"
done
interp=$(basename "$(patchelf --print-interpreter "$src")")
patchelf --set-interpreter "$prefix/lib/$interp" --force-rpath --set-rpath "$prefix/lib" \
	"$out/bin/tracer-wrap"
echo "bundle.sh: $out ready for $prefix ($(ls "$out/lib" | wc -l) libraries)"
