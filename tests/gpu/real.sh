#!/bin/bash
# real.sh BUILD - tracer's GPU figures on a real NVIDIA GPU against the
# driver's own accounting (nvidia-smi --query-accounted-apps).  Needs
# root, the NVIDIA driver, python3 with torch, and only the built binaries
# (BUILD/tracerd, BUILD/tracer); their shared libraries may come in a
# folder named by TRACER_LIBS (put on LD_LIBRARY_PATH).  It turns the
# driver's accounting mode on for the run (and back off when it was off),
# starts its own tracerd (file sink, pin dir, socket and state in a temp
# dir), runs a PyTorch job under `tracer run --gpus 0` that holds 4 GiB
# and multiplies matrices for about 5 s, and a job allocated GPU 0 that
# never uses it, then compares.  On a machine without an NVIDIA GPU it
# says so and exits 0.  docs/gpu.md, "Checking on a real GPU".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build}" && pwd)
[ -n "${TRACER_LIBS:-}" ] && export LD_LIBRARY_PATH=$TRACER_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$TOP/tests/lib.sh"

echo "== the machine"
echo "kernel: $(uname -r)"
if [ -e /sys/kernel/btf/vmlinux ]; then echo "BTF: /sys/kernel/btf/vmlinux present"
else echo "BTF: /sys/kernel/btf/vmlinux missing (tracerd needs it)"; fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU or driver here (nvidia-smi missing or failing): nothing to check"
	exit 0
fi
nvidia-smi
nvidia-smi -L
need_root
TMP=$(mktemp -d /tmp/tracer-gpureal.XXXXXX)
OLD_MODE=$(nvidia-smi -i 0 --query-gpu=accounting.mode --format=csv,noheader | tr -d ' ')
cleanup() {
	stop_tracerd
	if [ "$OLD_MODE" = Disabled ]; then nvidia-smi -i 0 -am 0 >/dev/null; fi
	rm -rf "$TMP"
}
trap cleanup EXIT
for b in tracerd tracer; do
	[ -x "$BUILD/$b" ] || { echo "FAIL: $BUILD/$b missing"; exit 1; }
	missing=$(ldd "$BUILD/$b" 2>/dev/null | grep 'not found')
	[ -z "$missing" ] || { echo "FAIL: $b: shared libraries not found (set TRACER_LIBS):"; echo "$missing"; exit 1; }
done
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
	{ echo "FAIL: python3 has no torch with CUDA (import torch; torch.cuda.is_available())"; exit 1; }
check "accounting mode on (nvidia-smi -i 0 -am 1)" nvidia-smi -i 0 -am 1

echo "== tracerd"
if ! start_tracerd real -o advice_min_runtime_s=0 -o sample_interval_ms=500; then
	if grep -q "BPF" "$TRACERD_LOG"; then
		echo "FAIL: tracerd could not load its BPF programs on this kernel ($(uname -r)):"
		grep "BPF" "$TRACERD_LOG" | head -n 5 | sed 's/^/    /'
	fi
	finish
	exit 1
fi
gpu_ready() { tr_cli status | grep -q '^gpu_counting: accounting'; }
check "tracer status: NVML found, accounting on" poll_until 30 gpu_ready
tr_cli status | grep '^gpu'

echo "== a PyTorch job: 4 GiB held, about 5 s of matrix products"
cat >"$TMP/work.py" <<'PY'
import os, sys, time
import torch
open(sys.argv[1], "w").write(f"{os.getpid()}\n")
held = torch.empty(4 << 30, dtype=torch.uint8, device="cuda")
a = torch.randn(4096, 4096, device="cuda")
t = time.time()
while time.time() - t < 5:
    b = a @ a
    torch.cuda.synchronize()
PY
tr_cli -o client_timeout_ms=5000 run --job-file "$TMP/job.torch" --gpus 0 --name torch-work -- python3 "$TMP/work.py" "$TMP/pid.torch"
wait_until 30 "the summary of the PyTorch job" summary_of_job "$TMP/job.torch"
pid=$(cat "$TMP/pid.torch")
nvidia-smi --query-accounted-apps=pid,gpu_utilization,mem_utilization,max_memory_usage,time \
	--format=csv,noheader,nounits >"$TMP/accounted.csv"
echo "nvidia-smi accounted apps:"; sed 's/^/    /' "$TMP/accounted.csv"
compare() {
	python3 - "$TRACERD_FILE" "$(cat "$TMP/job.torch")" "$pid" "$TMP/accounted.csv" "$1" <<'PY'
import json, sys
path, uid, pid, csv, what = sys.argv[1:]
s = [json.loads(l) for l in open(path) if l.strip() and json.loads(l).get("job") == uid][-1]
rows = [r.split(",") for r in open(csv) if r.strip()]
row = [[x.strip() for x in r] for r in rows if r[0].strip() == pid]
if not row:
    sys.exit(f"pid {pid} not in nvidia-smi's accounted apps")
_, gu, mu, mem_mib, ms = row[-1]
procs = [p for p in s.get("gpu", {}).get("processes", []) if p["pid"] == int(pid)]
if not procs:
    sys.exit(f"pid {pid} not in the summary's gpu.processes: {json.dumps(s.get('gpu'))[:800]}")
p = procs[0]
print(f"    tracer: {json.dumps(p)}")
if what == "counting" and (s.get("gpu_counting") != "accounting" or p["counting"] != "accounting"):
    sys.exit(f"gpu_counting {s.get('gpu_counting')}, process counting {p['counting']}")
if what == "memory" and abs(p["memory_peak_bytes"] - int(mem_mib) * 1048576) > 0.01 * int(mem_mib) * 1048576:
    sys.exit(f"memory {p['memory_peak_bytes']} B, nvidia-smi {mem_mib} MiB")
if what == "time" and abs(p["time_s"] * 1000 - int(ms)) > 0.05 * int(ms):
    sys.exit(f"time {p['time_s']} s, nvidia-smi {ms} ms")
if what == "utilization" and abs(p["utilization_pct"] - int(gu)) > 1:
    sys.exit(f"utilization {p['utilization_pct']}%, nvidia-smi {gu}%")
if what == "tool" and not any(t.get("gpu") for t in s["tools"]):
    sys.exit("no tool has a gpu part")
if what == "device":
    d = [d for d in s["gpu"]["devices"] if d["index"] == 0]
    if not d or not d[0]["allocated"] or not d[0]["used"]:
        sys.exit(f"GPU 0 not allocated and used: {d}")
    print(f"    GPU 0: utilization {d[0]['utilization_pct']}%, energy {d[0].get('energy_j')} J")
PY
}
check "gpu_counting: accounting for the job and its process" compare counting
check "GPU memory peak of pid $pid within 1% of nvidia-smi's max_memory_usage" compare memory
check "GPU time of pid $pid within 5% of nvidia-smi's time" compare time
check "GPU utilisation of pid $pid within 1 point of nvidia-smi's" compare utilization
check "the tool's GPU use in tools[]" compare tool
check "GPU 0 allocated and used" compare device

echo "== a job allocated GPU 0 that never uses it"
tr_cli -o client_timeout_ms=5000 run --job-file "$TMP/job.idle" --gpus 0 --name idle-gpu -- sleep 3
wait_until 30 "the summary of the idle job" summary_of_job "$TMP/job.idle"
idle_flag() {
	python3 - "$TRACERD_FILE" "$(cat "$TMP/job.idle")" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and json.loads(l).get("job") == sys.argv[2]][-1]
f = [f for f in s.get("flags", []) if f["id"] == "gpu_idle_allocation"]
print(f"    {json.dumps(f)}")
sys.exit(0 if f and f[0]["evidence"]["gpu_index"] == 0 and f[0]["evidence"]["processes"] == 0 else 1)
PY
}
check "gpu_idle_allocation for GPU 0 with no process" idle_flag
if python3 -c 'import jsonschema' 2>/dev/null; then
	validate_summaries "the summaries valid against docs/summary.schema.json" --min 2 "$TRACERD_FILE"
else
	echo "(no python3 jsonschema here: the summaries are not validated)"
fi
finish
