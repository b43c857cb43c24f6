#!/usr/bin/env bash
# Whether a scan keeps its slots full, on any machine: two kdet binaries scan 64 jobs of the fake
# libNVVM in `slow` mode (each compile sleeps 20 ms, so a compile costs no CPU) with --jobs J, in
# turns, REPS times each. From each scan's --trace: the mean number of runs in flight (the sum
# of the runs' durations over the span from the first run's start to the last one's end) and the
# mean run. A scheduler that keeps every slot fed has J runs in flight whatever the machine's
# cores; on a machine with fewer cores than J the runs themselves get longer (workers wait for a
# core), which changes the wall time but not the runs in flight.
# Usage: bench/slots_in_flight.sh KDET_A KDET_B FAKES_DIR [JOBS (default 16)] [REPS (default 3)]
set -euo pipefail
a=$(realpath "${1:?kdet A}")
b=$(realpath "${2:?kdet B}")
fakes=$(realpath "${3:?fakes dir (build/tests/fakes)}")
jobs=${4:-16}
reps=${5:-3}
[[ -e $fakes/libfakenvvm.so ]] || { echo "slots_in_flight: no $fakes/libfakenvvm.so" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/in"
for i in $(seq -w 1 64); do printf 'define void @k%s() {\n  ret void\n}\n' "$i" >"$T/in/k$i.ll"; done
cat >"$T/m.toml" <<EOF
inputs = ["in/*.ll"]
targets = ["80"]
[option_sets]
slow = ["-fake-mode=slow"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$fakes/libfakenvvm.so"
EOF
echo "slots_in_flight: 64 jobs of 20 ms compiles, $jobs slots, $(nproc) cores"
for ((r = 1; r <= reps; r++)); do
  for side in A B; do
    bin=$a
    [[ $side == B ]] && bin=$b
    rm -f "$T"/s.db* "$T/t.json"
    rc=0
    (cd "$T" && "$bin" scan m.toml --db s.db -j "$jobs" -q --trace t.json) || rc=$?
    if ((rc >= 2)); then echo "slots_in_flight: $side's scan exited $rc" >&2; exit 1; fi
    python3 - "$side" "$r" "$T/t.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[3]))
events = d["traceEvents"] if isinstance(d, dict) else d
runs = [e for e in events if e.get("ph") == "X" and e.get("cat") == "run"]
start = min(e["ts"] for e in runs)
end = max(e["ts"] + e["dur"] for e in runs)
busy = sum(e["dur"] for e in runs)
print(f"{sys.argv[1]} rep {sys.argv[2]}: {len(runs)} runs over {(end - start) / 1e6:.1f} s, "
      f"{busy / (end - start):.1f} in flight, mean run {busy / len(runs) / 1000:.1f} ms")
EOF
  done
done
