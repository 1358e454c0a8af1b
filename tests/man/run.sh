#!/bin/bash
# run.sh BUILD - the man pages (man/): `mandoc -T lint` reports nothing on
# any of them (cross references checked against these pages), every
# program (tracer-mail too) and the configuration file have one, every key of lib/config.c
# is in tracer.conf(5), and every long option each program's --help names
# is in its page; `tracer --help` names every command with the options of
# tracer(1)'s SYNOPSIS (synopsis.py); no words are lost in the rendered
# text of a page to a word read as an mdoc macro (words.py).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
TMP=$(mktemp -d /tmp/tracer-man.XXXXXX)
. "$TOP/tests/lib.sh"
trap 'rm -rf "$TMP"' EXIT
command -v mandoc >/dev/null || { echo "FAIL: mandoc is not installed (package mandoc)"; exit 1; }

PAGES="tracer.1 tracer-wrap.1 tracer.conf.5 tracerd.8 spank_tracer.8 tracer-mail.8"
for p in $PAGES; do
	[ -f "$TOP/man/$p" ] && pass "man/$p exists" || fail "man/$p is missing"
done
# a manual tree of our own pages: .Xr between them resolves, and nothing
# outside it is referenced
for f in "$TOP"/man/*.[1-8]; do
	s=${f##*.}
	mkdir -p "$TMP/man$s"
	cp "$f" "$TMP/man$s/"
done
PATH=$PATH:/usr/sbin # makewhatis
command -v makewhatis >/dev/null || { echo "FAIL: makewhatis is not installed (package mandoc)"; exit 1; }
makewhatis "$TMP" || { echo "FAIL: makewhatis $TMP"; exit 1; }
for f in "$TOP"/man/*.[1-8]; do
	# -W style: every message (as -T lint's default), Xr looked up in MANPATH
	if out=$(cd "$TMP" && MANPATH=$TMP mandoc -T lint -W style "man${f##*.}/${f##*/}" 2>&1) && [ -z "$out" ]; then
		pass "mandoc -T lint: nothing to report on ${f##*/}"
	else
		fail "mandoc -T lint on ${f##*/}"; echo "$out" | sed 's/^/    /'
	fi
done

keys_documented() {
	local k missing=
	for k in $(sed -n 's/^[[:space:]]*{"\([a-z_0-9]*\)", K_.*/\1/p' "$TOP/lib/config.c"); do
		grep -q "^\.It Cm $k No = " "$TOP/man/tracer.conf.5" || missing="$missing $k"
	done
	[ -z "$missing" ] || { echo "not in tracer.conf(5):$missing"; return 1; }
	[ -n "$(sed -n 's/^[[:space:]]*{"\([a-z_0-9]*\)", K_.*/\1/p' "$TOP/lib/config.c")" ] ||
		{ echo "no key found in lib/config.c"; return 1; }
}
check "every key of lib/config.c is in tracer.conf(5)" keys_documented

# options_documented PAGE COMMAND...: every --long option in COMMAND's
# output is a "Fl -long" of PAGE
options_documented() {
	local page=$1 o missing= help
	shift
	help=$("$@") || { echo "$* failed"; return 1; }
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
		grep -q "Fl -${o#--}\b" "$TOP/man/$page" || missing="$missing $o"
	done
	[ -z "$missing" ] || { echo "not in $page:$missing"; return 1; }
}
# every command tracer --help lists (a new one is checked without a change here)
SUBS=$("$BUILD/tracer" --help | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | sort -u)
check "tracer --help lists its commands" test -n "$SUBS"
for sub in "" $SUBS; do
	check "tracer.1 has every option of tracer $sub --help" \
		options_documented tracer.1 "$BUILD/tracer" $sub --help
done
check "tracer --help: every command and option, as the SYNOPSIS of tracer.1" \
	python3 "$TOP/tests/man/synopsis.py" "$TOP/man/tracer.1" "$BUILD/tracer"
for f in "$TOP"/man/*.[1-8]; do
	mandoc -T utf8 "$f" | col -b >"$TMP/${f##*/}.txt"
	check "${f##*/}: no words lost to mdoc macros in the rendered text" \
		python3 "$TOP/tests/man/words.py" "$f" "$TMP/${f##*/}.txt"
done
check "tracerd.8 has every option of tracerd --help" options_documented tracerd.8 "$BUILD/tracerd" --help
check "tracer-wrap.1 has every option of tracer-wrap --help" \
	options_documented tracer-wrap.1 "$BUILD/tracer-wrap" --help
check "tracer-mail.8 has every option of tracer-mail --help" \
	options_documented tracer-mail.8 "$BUILD/tracer-mail" --help
finish
