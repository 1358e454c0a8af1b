#!/bin/bash
# run.sh [SECONDS] - build every libFuzzer target (clang -fsanitize=fuzzer,
# address,undefined, with the parsers they reach compiled the same way)
# into build-fuzz/ and run each on its seed corpus (tests/fuzz/corpus/)
# for its share of SECONDS (default 60 in all).  The spool target also
# builds daemon/spool.c (the record reader of tracerd's spool).  A crash fails the suite
# and leaves the input in build-fuzz/; it then becomes a seed here and a
# regression test.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TOTAL=${1:-60}
OUT=$TOP/build-fuzz
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "FAIL: $CC is not installed (clang)"; exit 1; }
FLAGS="-g -O1 -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=undefined -I$TOP/lib -I$TOP/wrapper"  # no -I bpf: lib/ includes no BPF header
mkdir -p "$OUT/obj"
# the parsers, instrumented for coverage
LIBSRC="$(ls "$TOP"/lib/*.c) $TOP/wrapper/awsmeta.c"
objs=()
for src in $LIBSRC; do
	o=$OUT/obj/$(basename "$src" .c).o
	[ "$o" -nt "$src" ] || "$CC" $FLAGS -fsanitize=fuzzer-no-link -c "$src" -o "$o" || { echo "FAIL: compile $src"; exit 1; }
	objs+=("$o")
done
# the spool record reader is tracerd's own (daemon/), built for its target
spool_o=$OUT/obj/spool.o
[ "$spool_o" -nt "$TOP/daemon/spool.c" ] || "$CC" $FLAGS -fsanitize=fuzzer-no-link -I"$TOP/daemon" -c "$TOP/daemon/spool.c" -o "$spool_o" || { echo "FAIL: compile daemon/spool.c"; exit 1; }
targets=(proto procfs awsmeta jsonutil files spool apptainer dockercmd redact)
per=$((TOTAL / ${#targets[@]}))
[ "$per" -ge 1 ] || per=1
rc=0
for t in "${targets[@]}"; do
	bin=$OUT/fuzz_$t
	extra=()
	[ "$t" = spool ] && extra=(-I"$TOP/daemon" "$spool_o")
	if ! "$CC" $FLAGS -fsanitize=fuzzer "$TOP/tests/fuzz/fuzz_$t.c" "${extra[@]}" "${objs[@]}" -lcjson -lhwloc -lz -lm -ldl -lpthread -o "$bin"; then
		echo "FAIL: fuzz_$t does not build"; rc=1; continue
	fi
	case $t in
	files) corpora="$TOP/tests/fuzz/corpus/config $TOP/tests/fuzz/corpus/rules";;
	*) corpora="$TOP/tests/fuzz/corpus/$t";;
	esac
	[ "$t" = procfs ] && corpora="$TOP/tests/fuzz/corpus/procfs"
	work=$(mktemp -d /tmp/tracer-fuzz-corpus.XXXXXX)
	if (cd "$OUT" && "$bin" -max_total_time="$per" -print_final_stats=1 -max_len=8192 -timeout=10 "$work" $corpora >"$OUT/fuzz_$t.log" 2>&1); then
		echo "PASS: fuzz_$t ($per s, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/fuzz_$t.log" | grep -o '[0-9]*$' || echo '?') runs)"
	else
		echo "FAIL: fuzz_$t found a crash (input and log in $OUT)"; tail -n 30 "$OUT/fuzz_$t.log" | sed 's/^/    /'; rc=1
	fi
	rm -rf "$work"
done
exit $rc
