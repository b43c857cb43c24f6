#!/bin/bash
# The in-process runs of docs/CAPTURE.md and docs/PYTHON.md, from the repository root on a GPU
# host with PyTorch, Triton and JAX: framework taps under kdet capture --builds 3 (Triton, a Triton
# build whose in-process ptx stage varies, torch.compile, JAX), then Triton's real llir -> ptx as
# a Python stage, 200 runs in one process with heap churn, and a planted varying stage.
# KDET names a folder holding kdet and its preload libraries; LIBS the shared libraries it needs;
# OUT the reports folder.   KDET=dev LIBS=dev/lib OUT=/tmp/out scripts/device_inprocess.sh
set -u
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
  echo "=== $name"
  timeout 300 "$K" capture --builds "$n" --out "$W/$name" --json "$OUT/$name.json" -- python3 "$@" \
    >"$OUT/$name.txt" 2>&1
  echo "exit $?" >>"$OUT/$name.txt"
  grep -v '^kdet capture: build' "$OUT/$name.txt" | head -40
  ls "$W/$name/build-1/taps" 2>/dev/null | head -5
  head -12 "$W/$name/build-1/taps/index.tsv" 2>/dev/null
}
builds triton 3 "$D/triton_kernels.py"
builds triton_varies 4 "$D/triton_varies.py"
builds jax 3 "$D/jax_jit.py"
builds inductor 2 "$D/torch_compile.py"
# Triton's real llir -> ptx, one process, churn: an llir from the Triton build's taps.
llir=$(find "$W/triton/build-1/taps" -name '*.llir' | head -1)
meta=${llir%.llir}.json
echo "=== python stage on $llir"
arch=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['target']['arch'])" "$meta" 2>/dev/null || echo 90)
cp "$llir" "$OUT/kernel.llir" 2>/dev/null
R=$(python3 -m kdet_stage triton_stage)
timeout 240 "$K" run "$llir" --py "$R:llir_to_ptx" --process same --heap churn -n 200 --json "$OUT/llir_same.json" -- --arch="$arch" 2>&1 | tee "$OUT/llir_same.txt" | head -12
timeout 120 "$K" run "$llir" --py "$D/triton_llir_varies.py:llir_to_ptx" --process same --heap churn -n 40 -- --arch="$arch" 2>&1 | tee "$OUT/llir_planted.txt" | head -8
timeout 120 "$K" run "$llir" --py "$R:llir_to_ptx" --process fresh -n 12 -- --arch="$arch" 2>&1 | tee "$OUT/llir_fresh.txt" | head -6
