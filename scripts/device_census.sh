#!/bin/bash
# The issue-46 census on a many-core host: KERNELS `kdet corpus` kernels (default 6491, seed 1,
# medium) x targets 80, 90a x 3 runs of libNVVM, each in a fresh process, the default setting
# otherwise, one scan with every core a slot. Prints the figures docs/PERFORMANCE.md gives for it:
#   wall, runs/s, efficiency (the compiles' summed time / slots / wall; the goal 0.95), the runs'
#   time outside their compiles over the compiles' time, the driver's peak memory (VmHWM of the
#   kdet process, read every 50 ms), the database's size (with its WAL and shm, after the scan),
#   and the time and size of the reports read back from it (JSON, HTML).
# KDET: a folder holding kdet (with libkdet_chaos.so beside it); LIBS: a folder of the shared
# libraries it needs (a machine that cannot install packages); OUT: where the figures go.
#   KDET=.dev LIBS=.dev/lib OUT=/tmp/census [KERNELS=6491] [LIMIT=540] scripts/device_census.sh
set -u
K=$(cd "${KDET:?KDET names a folder holding kdet}" && pwd)/kdet
OUT=${OUT:?OUT names the figures folder}
KERNELS=${KERNELS:-6491}
LIMIT=${LIMIT:-540}
[[ -n ${LIBS:-} ]] && export LD_LIBRARY_PATH=$(cd "$LIBS" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
lib=${KDET_NVVM_LIB:-}
for c in /usr/local/cuda/nvvm/lib64/libnvvm.so /usr/local/cuda/lib64/libnvvm.so; do
  [[ -z $lib && -e $c ]] && lib=$c
done
[[ -n $lib ]] || { echo "device_census: no libnvvm.so (set KDET_NVVM_LIB)" >&2; exit 77; }
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
{
  date -u; echo "cores $(nproc)"; grep -m1 'model name' /proc/cpuinfo; echo "libNVVM $lib"
  "$K" --version
} | tee "$OUT/machine.txt"
t0=$(date +%s.%N)
"$K" corpus --out "$W/corpus" --count "$KERNELS" --seed 1 >/dev/null || exit 1
echo "corpus: $KERNELS kernels in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
cat >"$W/census.toml" <<EOF
inputs = ["corpus/*.ll"]
targets = ["80", "90a"]
[setting]
process = "fresh"
[budget]
max_runs = 3
[[compiler]]
name = "nvvm"
backend = "nvvm"
lib = "$lib"
EOF
cat >"$W/watch.py" <<'EOF'
import json, os, subprocess, sys, time
slots, trace, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[4:])
hwm = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("VmHWM:"):
                hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    if time.monotonic() - t0 > limit:
        p.send_signal(2)  # SIGINT: kdet keeps what it recorded and exits 130
        p.wait()
        break
    time.sleep(0.05)
wall = time.monotonic() - t0
runs = [e for e in json.load(open(trace))["traceEvents"] if e.get("cat") == "run"]
compile_s = sum(e["args"]["compile_ms"] for e in runs) / 1e3
run_s = sum(e["dur"] for e in runs) / 1e6
print(json.dumps({"exit": p.returncode, "runs": len(runs), "wall_s": round(wall, 1),
                  "runs_per_s": round(len(runs) / wall, 1),
                  "efficiency": round(compile_s / slots / wall, 3),
                  "outside_share": round((run_s - compile_s) / compile_s, 4),
                  "compile_limit_s": round(compile_s / slots, 1),
                  "driver_peak_MiB": round(hwm / 1024, 1)}))
EOF
jobs=$(nproc)
(cd "$W" && python3 watch.py "$jobs" s.trace "$LIMIT" "$K" scan census.toml --db s.db -j "$jobs" \
  --trace s.trace -q) | tee "$OUT/census.json"
ls -l "$W"/s.db* | tee "$OUT/db.txt"
echo "database: $(cat "$W"/s.db* | wc -c) bytes with its WAL" | tee -a "$OUT/db.txt"
for r in json html; do
  t0=$(date +%s.%N)
  if [[ $r == json ]]; then "$K" scan --report "$W/s.db" --json "$W/r.json" -q
  else "$K" scan --report "$W/s.db" --report-html "$W/r.html" -q; fi
  echo "report $r: exit $? in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s," \
    "$(wc -c <"$W/r.$r") bytes" | tee -a "$OUT/db.txt"
done
python3 -c "import json; d = json.load(open('$W/r.json')); print(json.dumps(d.get('summary', {}))[:1500])" \
  >"$OUT/summary.txt" 2>&1
