#!/usr/bin/env python3
"""pipeline_tools.py - the python steps of the tests/tuneproof pipeline.

  pipeline_tools.py simulate REF.fa READS.fq N   a random reference of
      REF_LEN bases and N reads of READ_LEN bases sampled from it (seeded:
      the same N gives the same files)
  pipeline_tools.py profile READS.fq OUT.txt     base composition of the
      reads, computed the naive way: the whole file held in memory
      COPIES times over, so its memory grows in proportion to its input
      (the step whose request must follow the input size)
"""
import random
import sys

REF_LEN = 100_000
READ_LEN = 100
COPIES = 20


def simulate(ref_path, reads_path, n):
    rng = random.Random(42)
    ref = "".join(rng.choice("ACGT") for _ in range(REF_LEN))
    with open(ref_path, "w") as f:
        f.write(">chr1\n")
        for i in range(0, REF_LEN, 80):
            f.write(ref[i:i + 80] + "\n")
    qual = "I" * READ_LEN
    with open(reads_path, "w") as f:
        for i in range(n):
            p = rng.randrange(REF_LEN - READ_LEN)
            f.write(f"@r{i}\n{ref[p:p + READ_LEN]}\n+\n{qual}\n")


def profile(reads_path, out_path):
    with open(reads_path, "rb") as f:
        data = f.read()
    # COPIES copies side by side, every page written: resident, not lazy
    held = bytearray(len(data) * COPIES)
    for i in range(COPIES):
        held[i * len(data):(i + 1) * len(data)] = data
    counts = {b: data.count(b) for b in b"ACGT"}
    with open(out_path, "w") as f:
        f.write(f"held {len(held)}\n")
        f.write(f"bytes {len(data)}\n")
        for b, c in sorted(counts.items()):
            f.write(f"{chr(b)} {c}\n")


def main(argv):
    if len(argv) == 5 and argv[1] == "simulate":
        simulate(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 4 and argv[1] == "profile":
        profile(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
