#!/bin/bash
# pipeline.sh WORKDIR - the workload of the peers benchmark (bench/peers.sh),
# run once per collector: real tools on generated data plus what breaks
# samplers (2,000 processes of 2 ms, a 300 MiB spike of 200 ms, children
# that outlive their parent).  Every step runs under peers_wait, which
# writes the kernel's wait4 figures to $PEERS_TRUTH when that is set.
# The tools are called through links named pk_* in $PEERS_BIN, so that
# the collectors that group by process name tell them from other users'
# python3 or sort on a shared machine.  bench/peers/Snakefile is the same
# steps as Snakemake rules: change both together.
set -eu
W=${PEERS_W:?PEERS_W: the peers_wait launcher}
B=${PEERS_BIN:?PEERS_BIN: the directory of the pk_* tools}
S=${PEERS_SCALE:-1}
SHORT=${PEERS_SHORT:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$1"
run() { "$W" ${PEERS_TRUTH:+-o "$PEERS_TRUTH"} "$@"; }

run -- "$B/pk_python3" "$HERE/gen.py" ref.fa reads.fq "$S"
run -O /dev/null -- "$B/pk_bwa" index ref.fa 2>/dev/null
run -O aln.sam -- "$B/pk_bwa" mem -t 2 ref.fa reads.fq 2>/dev/null
run -- "$B/pk_samtools" sort -@2 -o aln.bam aln.sam 2>/dev/null
run -- "$B/pk_samtools" index aln.bam
run -O reads.fq.gz -- "$B/pk_gzip" -c reads.fq
run -O reads2.fq -- "$B/pk_gzip" -dc reads.fq.gz
run -O seqs.txt -- "$B/pk_awk" 'NR % 4 == 2' reads2.fq
run -- "$B/pk_sort" -o sorted.txt seqs.txt
run -- "$B/pk_spike"
run -n "$SHORT" -- "$B/pk_short" 2
run -- "$B/pk_orphan"
