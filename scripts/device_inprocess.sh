#!/bin/bash
# The in-process runs of docs/CAPTURE.md and docs/PYTHON.md, from the repository root on a GPU
# host with PyTorch, Triton and JAX, most important first: framework taps under kdet capture
# --builds 3 (Triton, JAX, torch.compile), a planted Triton llir -> ptx stage that varies with the
# heap (kdet run --py, one process), the replay bundles capture wrote for Triton's ttgir -> llir
# and llir -> ptx, Triton's real llir -> ptx 200 runs in one process with heap churn, and a Triton
# build whose in-process ptx stage varies (--builds 4).
# KDET names a folder holding kdet and its preload libraries; LIBS the shared libraries it needs;
# OUT the reports folder; BUDGET the seconds all steps may take together (default 420): the steps
# run most important first, each cut to what is left, and one left too little is skipped and
# says so.   KDET=dev LIBS=dev/lib OUT=/tmp/out scripts/device_inprocess.sh >/tmp/out/console.txt
# Send its output to a file, not to a pipe that may close early (`| head`): the next echo would
# then die of SIGPIPE and end the script before its later steps.
set -u
DEADLINE=$((SECONDS + ${BUDGET:-420}))
# cap N: N seconds, or what is left of the budget when that is less (1: no time left; timeout 0
# would mean no limit).
cap() {
  local left=$((DEADLINE - SECONDS))
  ((left < 20)) && { echo 1; return; }
  echo $((left < $1 ? left : $1))
}
K=$(cd "${KDET:?}" && pwd)/kdet
OUT=${OUT:?}
[[ -n ${LIBS:-} ]] && export LD_LIBRARY_PATH=$(cd "$LIBS" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$(pwd)/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
D=$(pwd)/tests/capture/device
mkdir -p "$OUT"
W=$(mktemp -d)
cd "$W" || exit 1
builds() { # builds NAME N SCRIPT: kdet capture --builds N with the framework taps
  local name=$1 n=$2
  shift 2
  local t
  t=$(cap 150)
  echo "=== $name (limit ${t}s)"
  ((t == 1)) && { echo "skipped: the budget is spent"; return; }
  timeout "$t" "$K" capture --builds "$n" --out "$W/$name" --json "$OUT/$name.json" -- python3 "$@" \
    >"$OUT/$name.txt" 2>&1
  echo "exit $?" >>"$OUT/$name.txt"
  grep -v '^kdet capture: build' "$OUT/$name.txt" | head -40
  ls "$W/$name/build-1/taps" 2>/dev/null | head -5
  head -12 "$W/$name/build-1/taps/index.tsv" 2>/dev/null
}
builds triton 3 "$D/triton_kernels.py"
grep -c 'shipped in' "$OUT/triton.txt" | sed 's/^/lines naming a shipped fatbin: /'
grep -m3 'shipped in' "$OUT/triton.txt"
builds jax 3 "$D/jax_jit.py"
builds inductor 3 "$D/torch_compile.py"
# A Triton llir -> ptx stage made to vary with a malloc'd block's address (found, one process).
llir=$(find "$W/triton/build-1/taps" -name '*.llir' | head -1)
meta=${llir%.llir}.json
arch=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['target']['arch'])" "$meta" 2>/dev/null || echo 90)
cp "$llir" "$OUT/kernel.llir" 2>/dev/null
R=$(python3 -m kdet_stage triton_stage)
echo "=== planted python stage on $llir (arch $arch)"
timeout "$(cap 60)" "$K" run "$llir" --py "$D/triton_llir_varies.py:llir_to_ptx" --process same --heap churn -n 40 -- --arch="$arch" 2>&1 | tee "$OUT/llir_planted.txt" | head -10
# The replay bundles capture wrote for Triton's tapped stages (ttgir -> llir, llir -> ptx): each
# run in one process with churn; the kept output must come back.
echo "=== replay bundles"
for ext in llir ptx; do
  line=$(grep -m1 "\.$ext	" "$W/triton/build-1/taps/replays.tsv" 2>/dev/null)
  id=${line##*	}
  [[ -n $id ]] || { echo "no replay bundle for a .$ext"; continue; }
  echo "--- .$ext from $line"
  timeout "$(cap 60)" "$K" run "$W/triton/build-1/bundles/$id" --process same --heap churn -n 20 2>&1 | head -14
done 2>&1 | tee "$OUT/replay.txt"
echo "=== python stage on $llir, 200 runs"
timeout "$(cap 120)" "$K" run "$llir" --py "$R:llir_to_ptx" --process same --heap churn -n 200 --json "$OUT/llir_same.json" -- --arch="$arch" 2>&1 | tee "$OUT/llir_same.txt" | head -12
builds triton_varies 4 "$D/triton_varies.py"
for d in "$W"/*/; do
  n=$(basename "$d")
  cp "$d/build-1/taps/index.tsv" "$OUT/$n.taps.tsv" 2>/dev/null
  cp "$d/build-1/taps/replays.tsv" "$OUT/$n.replays.tsv" 2>/dev/null
done
