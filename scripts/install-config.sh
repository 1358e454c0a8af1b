#!/bin/sh
# install-config.sh SRC DEST - install a configuration file (make install)
# without ever overwriting one the site has edited: DEST is written when
# it is absent or already the same as SRC; otherwise DEST stays as it is,
# SRC goes beside it as DEST.new, and a line says so, as rpm does for
# %config(noreplace) files (DEST.rpmnew).
set -eu
[ $# -eq 2 ] || { echo "usage: install-config.sh SRC DEST" >&2; exit 2; }
src=$1 dest=$2
if [ -e "$dest" ] && ! cmp -s "$src" "$dest"; then
	install -D -m 0644 "$src" "$dest.new"
	echo "$dest: kept as edited; the new default is $dest.new (compare and merge by hand)"
else
	install -D -m 0644 "$src" "$dest"
fi
