#!/usr/bin/env bash
# Census speed of two kdet binaries side by side: the same generated corpus and manifest (the
# census of docs/PERFORMANCE.md, "kdet scan: census scale": 2,000 kernels (KERNELS) x targets 80, 90a x
# -opt=3, -opt=2, libNVVM, default setting and budget), one shard of it scanned by A, B, A, B, ...
# in turns, so that load on the machine hits both alike. Prints each scan's wall, jobs and runs,
# then the ratio of B's median runs/s to A's. It also prints the CPU time of the kdet process
# itself per run (all its threads, none of its worker processes, sampled from /proc every 20 ms):
# the scheduling cost that one core must carry for every slot, so a machine with few cores can
# tell whether the scheduler would keep many slots fed (slots x CPU per run / compile time < 1),
# and the CPU of its busiest thread per run (the executor's loop thread, which drives every run:
# the one that would saturate first).
# Usage: bench/census_ab.sh KDET_A KDET_B [SHARD (default 7/50)] [REPS (default 2)]
#        [JOBS (default: nproc)] [KERNELS (default 2000)]
# Needs libNVVM (KDET_NVVM_LIB, else under $CUDA_HOME or /usr/local/cuda); exit 77 without it.
set -euo pipefail
a=$(realpath "${1:?kdet A}")
b=$(realpath "${2:?kdet B}")
shard=${3:-7/50}
reps=${4:-2}
jobs=${5:-$(nproc)}
kernels=${6:-2000}
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=${KDET_NVVM_LIB:-}
for c in "$cuda/lib64/libnvvm.so" "$cuda/nvvm/lib64/libnvvm.so" "$cuda/lib/libnvvm.so"; do
  [[ -z $lib && -e $c ]] && lib=$c
done
[[ -n $lib ]] || { echo "census_ab: no libnvvm.so under $cuda (set KDET_NVVM_LIB)" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$a" corpus --out "$T/corpus" --count "$kernels" --size small --seed 1 >/dev/null
cat >"$T/census.toml" <<EOF
inputs = ["corpus/*.ll"]
targets = ["80", "90a"]
[option_sets]
O3 = ["-opt=3"]
O2 = ["-opt=2"]
[[compiler]]
name = "nvvm"
backend = "nvvm"
lib = "$lib"
EOF
declare -A rates selfms loopms
echo "census_ab: shard $shard of $kernels kernels, $jobs slots, $(nproc) cores, libNVVM $lib"
for ((r = 1; r <= reps; r++)); do
  for side in A B; do
    bin=$a
    [[ $side == B ]] && bin=$b
    rm -f "$T"/s.db* "$T/s.json"
    rc=0
    start=$(date +%s.%N)
    (cd "$T" && python3 -c '
import os, subprocess, sys, time
p = subprocess.Popen(sys.argv[2:])
cpu = 0.0
threads = {}
tick = os.sysconf("SC_CLK_TCK")
def ticks(path):
    f = open(path).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
while p.poll() is None:
    try:
        cpu = ticks(f"/proc/{p.pid}/stat") / tick
        for t in os.listdir(f"/proc/{p.pid}/task"):
            try:
                threads[t] = ticks(f"/proc/{p.pid}/task/{t}/stat") / tick
            except (OSError, IndexError):
                pass
    except (OSError, IndexError):
        pass
    time.sleep(0.02)
open(sys.argv[1], "w").write(f"{cpu:.2f} {max(threads.values(), default=0):.2f}\n")
sys.exit(p.returncode)' self.cpu "$bin" scan census.toml --db s.db --shard "$shard" -j "$jobs" --json s.json -q) || rc=$?
    # 1 is a scan that found variance; 2 and up mean no census was measured.
    if ((rc >= 2)); then echo "census_ab: $side's scan exited $rc" >&2; exit 1; fi
    end=$(date +%s.%N)
    read -r njobs nruns < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["jobs"]), sum(j.get("runs", 0) for j in d["jobs"]))' "$T/s.json")
    # Like with like: both sides must have run the same setting. A kdet without its
    # libkdet_chaos.so beside it varies the heap by churn instead of chaos, and its runs cost
    # other CPU (a copy of the binary alone, without the library, did exactly that).
    defaults=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meta"].get("defaults", ""))' "$T/s.json")
    if [[ -z ${first_defaults:-} ]]; then
      first_defaults=$defaults
    elif [[ $defaults != "$first_defaults" ]]; then
      echo "census_ab: $side ran another setting than the first scan; not comparable:" >&2
      echo "  first: $first_defaults" >&2
      echo "  $side: $defaults" >&2
      exit 1
    fi
    wall=$(python3 -c "print(f'{$end - $start:.2f}')")
    rate=$(python3 -c "print(f'{$nruns / ($end - $start):.1f}')")
    rates[$side]+="$rate "
    read -r self loop <"$T/self.cpu"
    selfms[$side]+="$(python3 -c "print(f'{1000 * $self / max($nruns, 1):.3f}')") "
    loopms[$side]+="$(python3 -c "print(f'{1000 * $loop / max($nruns, 1):.3f}')") "
    echo "$side rep $r: $njobs jobs, $nruns runs, wall $wall s, $rate runs/s," \
      "kdet's own CPU $self s, its busiest thread $loop s"

  done
done
python3 - "${rates[A]}" "${rates[B]}" "${selfms[A]}" "${selfms[B]}" "${loopms[A]}" "${loopms[B]}" <<'EOF'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
print(f"median runs/s: A {statistics.median(a):.1f}, B {statistics.median(b):.1f}; "
      f"B / A = {statistics.median(b) / statistics.median(a):.3f}")
sa = statistics.median(float(x) for x in sys.argv[3].split())
sb = statistics.median(float(x) for x in sys.argv[4].split())
print(f"kdet's own CPU per run (median): A {sa:.2f} ms, B {sb:.2f} ms; B / A = {sb / sa:.3f}")
la = statistics.median(float(x) for x in sys.argv[5].split())
lb = statistics.median(float(x) for x in sys.argv[6].split())
print(f"its busiest thread's CPU per run (median): A {la:.2f} ms, B {lb:.2f} ms; "
      f"B / A = {lb / la:.3f}")
EOF
