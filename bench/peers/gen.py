# gen.py REF READS SCALE - the peers benchmark's input (bench/peers.sh): a
# random reference of 100,000 x SCALE bases and 10,000 x SCALE reads of
# 100 bases drawn from it, seeded so every pass aligns the same data.
import random
import sys

ref_path, reads_path, scale = sys.argv[1], sys.argv[2], float(sys.argv[3])
random.seed(7)
ref = "".join(random.choice("ACGT") for _ in range(int(100_000 * scale)))
with open(ref_path, "w") as f:
    f.write(">chr1\n")
    for i in range(0, len(ref), 60):
        f.write(ref[i:i + 60] + "\n")
with open(reads_path, "w") as f:
    for n in range(int(10_000 * scale)):
        p = random.randrange(0, len(ref) - 100)
        f.write(f"@r{n}\n{ref[p:p + 100]}\n+\n{'I' * 100}\n")
