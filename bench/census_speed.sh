#!/usr/bin/env bash
# Census speed with fresh processes, as ratios that read the same on 2 cores and on 16: the
# issue-46 census in small (KERNELS generated kernels x targets 80, 90a x 3 runs, each in a fresh
# process, libNVVM, the default setting otherwise), scanned by two kdet binaries A, B, A, B, ...
# in turns, so that load on the machine hits both alike. For each scan, from its --trace and the
# CPU of kdet and every process under it:
#   efficiency  the compile-time limit over the wall: (sum of the compiles' time / slots) / wall;
#               1 is every slot compiling all the time (the issue's goal: 0.95 on 16 cores)
#   outside     the runs' time outside the compile over the compiles' time: a slot's time spent
#               on its worker's start, library load, folders and the reply (the issue's 6.6 %)
#   kdet CPU    the CPU of kdet and its workers outside the compiles over the compiles' CPU:
#               worker starts, library loads, exits, folders, the loop thread (what the cores
#               pay beyond the compiles, wherever it lands)
#   loop        the CPU of kdet's busiest thread (its executor loop) per run
# then the medians of each side and B / A.
# Usage: bench/census_speed.sh KDET_A KDET_B [KERNELS (default 200)] [REPS (default 2)]
#        [JOBS (default: nproc)] [SIZE (kdet corpus --size; default small)]
# The issue's census used kdet corpus's default size, medium (about 170 ms a compile on the
# 16-core host); small keeps a 2-core machine's scans short.
# Needs libNVVM (KDET_NVVM_LIB, else under $CUDA_HOME or /usr/local/cuda); exit 77 without it.
set -euo pipefail
a=$(realpath "${1:?kdet A}")
b=$(realpath "${2:?kdet B}")
kernels=${3:-200}
reps=${4:-2}
jobs=${5:-$(nproc)}
size=${6:-small}
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=${KDET_NVVM_LIB:-}
for c in "$cuda/lib64/libnvvm.so" "$cuda/nvvm/lib64/libnvvm.so" "$cuda/lib/libnvvm.so"; do
  [[ -z $lib && -e $c ]] && lib=$c
done
[[ -n $lib ]] || { echo "census_speed: no libnvvm.so under $cuda (set KDET_NVVM_LIB)" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$a" corpus --out "$T/corpus" --count "$kernels" --size "$size" --seed 1 >/dev/null
cat >"$T/census.toml" <<EOF
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
# One scan under a watcher: kdet's busiest thread sampled from /proc every 20 ms, and the CPU of
# kdet and all it reaped (getrusage of children) once it ended. Prints its figures as one line.
cat >"$T/scan.py" <<'EOF'
import json, os, resource, subprocess, sys, time
slots, trace = int(sys.argv[1]), sys.argv[2]
tick = os.sysconf("SC_CLK_TCK")
def ticks(path):
    f = open(path).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[3:])
threads = {}
while p.poll() is None:
    try:
        for t in os.listdir(f"/proc/{p.pid}/task"):
            try:
                threads[t] = ticks(f"/proc/{p.pid}/task/{t}/stat") / tick
            except (OSError, IndexError):
                pass
    except OSError:
        pass
    time.sleep(0.02)
wall = time.monotonic() - t0
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode >= 2:  # 1 is a scan that found variance; 2 and up: no census measured
    sys.exit(f"census_speed: the scan exited {p.returncode}")
cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
runs = [e for e in json.load(open(trace))["traceEvents"] if e.get("cat") == "run"]
n = len(runs)
compile_s = sum(e["args"]["compile_ms"] for e in runs) / 1e3
# A kdet before compile_cpu_ms (e55e7ad) gives no CPU figure: -1 stands for none.
has_cpu = all("compile_cpu_ms" in e["args"] for e in runs)
compile_cpu = sum(e["args"].get("compile_cpu_ms", 0) for e in runs) / 1e3
ready_s = sum(e["args"]["setup_ms"] for e in runs) / 1e3
run_s = sum(e["dur"] for e in runs) / 1e6
loop = max(threads.values(), default=0.0)
print(json.dumps({"runs": n, "wall": wall, "efficiency": compile_s / slots / wall,
                  "outside": (run_s - compile_s) / compile_s, "ready": ready_s / compile_s,
                  "kdet_cpu": (cpu - compile_cpu) / compile_cpu if has_cpu and compile_cpu else -1,
                  "loop_ms": 1e3 * loop / max(n, 1), "runs_s": n / wall}))
EOF
cat >"$T/line.py" <<'EOF'
import json, sys
d = json.loads(sys.argv[2])
print(f"{sys.argv[1]}: {d['runs']} runs, wall {d['wall']:.2f} s, {d['runs_s']:.1f} runs/s, "
      f"efficiency {d['efficiency']:.3f}, outside the compile {100 * d['outside']:.1f} % of the "
      f"compile time (worker ready {100 * d['ready']:.1f} %), kdet CPU "
      + (f"{100 * d['kdet_cpu']:.1f} %" if d["kdet_cpu"] >= 0 else "(not in this kdet's trace)")
      + f" of the compile CPU, loop {d['loop_ms']:.2f} ms a run")
EOF
echo "census_speed: $kernels $size kernels x 2 targets x 3 fresh runs, $jobs slots, $(nproc) cores," \
  "libNVVM $lib"
: >"$T/A.txt"
: >"$T/B.txt"
for ((r = 1; r <= reps; r++)); do
  for side in A B; do
    bin=$a
    [[ $side == B ]] && bin=$b
    rm -f "$T"/s.db* "$T/s.trace"
    line=$(cd "$T" && python3 scan.py "$jobs" s.trace "$bin" scan census.toml --db s.db \
      -j "$jobs" --trace s.trace -q)
    echo "$line" >>"$T/$side.txt"
    python3 "$T/line.py" "$side rep $r" "$line"
  done
done
python3 - "$T/A.txt" "$T/B.txt" <<'EOF'
import json, statistics, sys
sides = [[json.loads(l) for l in open(p)] for p in sys.argv[1:3]]
for key, what, scale, unit in [("efficiency", "efficiency", 1, ""), ("runs_s", "runs/s", 1, ""),
                               ("outside", "run time outside the compile / compile time", 100, " %"),
                               ("ready", "of which worker ready", 100, " %"),
                               ("kdet_cpu", "kdet CPU outside the compile / compile CPU", 100, " %"),
                               ("loop_ms", "loop thread CPU a run", 1, " ms")]:
    a, b = (statistics.median(d[key] for d in s) for s in sides)
    if a < 0 or b < 0:  # a kdet whose trace has no compile CPU
        print(f"{what}: not given by both kdets")
        continue
    ratio = f"{b / a:.3f}" if a else "-"
    print(f"{what} (median): A {scale * a:.3f}{unit}, B {scale * b:.3f}{unit}; B / A = {ratio}")
EOF
