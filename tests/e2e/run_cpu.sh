#!/bin/bash
# tier: cuda
# kdet run measures its own cost directly: the CPU time of the whole command (kdet,
# its workers and the compilers they ran) less the compiles' own CPU time, for
# library compiles (measured in the worker around the call) and exec compiles
# (the compiler child's rusage).
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA 13.0 libNVVM and ptxas not found under /usr/local/cuda"

# check FILE: runs the Python statements on stdin with d = FILE's JSON; fails on an assertion.
check() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.stdin.read())' "$1"; }

# Library backend: real libNVVM, same process, natural setting.
"$KDET" run "$EX/nvvm/llvm7/saxpy.ll" -n 4 --process same --heap none --unnamed natural \
  --json "$T/lib.json" -- -arch=compute_90a -opt=3 >"$T/lib.txt"
check "$T/lib.json" <<'PY' ||
c = d["cpu"]
assert c["compile_seconds"] > 0, c
assert c["total_seconds"] >= c["compile_seconds"], c
assert abs(c["kdet_seconds"] - (c["total_seconds"] - c["compile_seconds"])) < 1e-6, c
assert 0 <= c["worker_kdet_seconds"] <= c["kdet_seconds"], c
recs = d["records"]
assert len(recs) == 4 and all(r["compile_cpu_seconds"] > 0 for r in recs), recs
# The record sum is the compiles of the runs (no probes with --unnamed natural).
assert abs(sum(r["compile_cpu_seconds"] for r in recs) - c["compile_seconds"]) < 1e-6, c
PY
  fail "library run: cpu record inconsistent: $(json_get "$T/lib.json" '["cpu"]')"
grep -q '^cpu       compile .*, kdet .* % of the compile CPU)' "$T/lib.txt" ||
  fail "no cpu line in the summary: $(cat "$T/lib.txt")"

# Default run: the probes' compiles count as compiles, not as kdet's cost.
"$KDET" run "$EX/nvvm/llvm7/saxpy.ll" -n 2 --process same --json "$T/probes.json" \
  -- -arch=compute_90a >/dev/null
check "$T/probes.json" <<'PY' ||
c = d["cpu"]; probes = d["defaults"]["probe_runs"]
runs = sum(r["compile_cpu_seconds"] for r in d["records"])
assert probes >= 1 and c["compile_seconds"] > runs, (probes, c, runs)
PY
  fail "probe compiles not counted as compile CPU: $(json_get "$T/probes.json" '["cpu"]')"

# Exec backend: the compile's CPU is the compiler child's (ptxas), seen through rusage.
"$KDET" run "$EX/ptx/saxpy.ptx" --backend exec -n 3 --unnamed natural \
  --cmd '/usr/local/cuda/bin/ptxas -arch=sm_90a {input} -o {output}' --json "$T/exec.json" >/dev/null
check "$T/exec.json" <<'PY' ||
c = d["cpu"]
assert all(r["compile_cpu_seconds"] > 0 for r in d["records"]), d["records"]
assert c["total_seconds"] >= c["compile_seconds"] > 0, c
PY
  fail "exec run: compiler CPU not seen: $(json_get "$T/exec.json" '["cpu"]')"
echo "$NAME: ok"
