#!/bin/bash
# pipeline.sh - a small pipeline of real tools, the shape of a genomics
# workflow: simulate reads, align them, sort, compress, summarise in
# Python, plus a memory-hungry step, an I/O-heavy step and a step that
# sleeps.  Run it under tracer:  tracer run --name demo -- pipeline.sh
set -euo pipefail
work=$(mktemp -d /tmp/tracer-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

echo "[1/7] simulate a reference and reads (python)"
python3 - <<'PY'
import random
random.seed(42)
ref = "".join(random.choice("ACGT") for _ in range(200_000))
with open("ref.fa", "w") as f:
    f.write(">chr1\n")
    for i in range(0, len(ref), 60):
        f.write(ref[i:i + 60] + "\n")
with open("reads.fq", "w") as f:
    for n in range(20_000):
        p = random.randrange(0, len(ref) - 100)
        f.write(f"@r{n}\n{ref[p:p + 100]}\n+\n{'I' * 100}\n")
PY

echo "[2/7] align (bwa index + bwa mem) and sort (samtools sort)"
bwa index ref.fa 2>/dev/null
bwa mem -t 2 ref.fa reads.fq 2>/dev/null | samtools sort -@1 -o aln.bam - 2>/dev/null
samtools index aln.bam
samtools flagstat aln.bam | sed -n 1p

echo "[3/7] compress (gzip) and sort text (sort)"
gzip -c reads.fq > reads.fq.gz
zcat reads.fq.gz | awk 'NR % 4 == 2' | sort | uniq -c | sort -rn | sed -n 1p

echo "[4/7] a Python step that spawns subprocesses"
python3 - <<'PY'
import subprocess
for region in ("chr1:1-50000", "chr1:50001-100000", "chr1:100001-200000"):
    out = subprocess.run(["samtools", "view", "-c", "aln.bam", region],
                         capture_output=True, text=True, check=True)
    print(region, out.stdout.strip())
PY

echo "[5/7] a memory-hungry step (400 MiB)"
# held for 1.5 s: a step as short as its allocation falls between the
# samples of the memory in use (the job's time series, its chart)
python3 -c 'import time; b = bytearray(400 * 1024 * 1024); b[::4096] = b"x" * len(b[::4096]); time.sleep(1.5); print("held", len(b) >> 20, "MiB")'

echo "[6/7] an I/O-heavy step (write and read 256 MiB)"
dd if=/dev/zero of=big.dat bs=1M count=256 conv=fsync status=none
dd if=big.dat of=/dev/null bs=1M status=none
rm -f big.dat

echo "[7/7] a step that sleeps (the allocation idle meanwhile)"
sleep 3
echo "done"
