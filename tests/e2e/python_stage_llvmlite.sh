#!/usr/bin/env bash
# tier: quick
# python_stage_llvmlite.sh: kdet's llvmlite recipe (python/kdet_stage/llvmlite_ptx.py, LLVM IR to
# PTX through llvmlite's NVPTX back end) is a real compiler hosted in Python: DETERMINISTIC with
# --process same, fresh and both and every other factor varied, its PTX kept exactly as the
# recipe returns it. And what kdet found with it: LLVM's NVPTX back end numbers call sites
# (`// callseq N` comments) from a counter global to the process, so a module with a call gives
# other PTX comments in each compile of one process, and one PTX in fresh ones.
# Needs /usr/bin/python3 with llvmlite (Debian: python3-llvmlite).
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
"$PY" -c 'import llvmlite.binding' 2>/dev/null || skip "llvmlite for /usr/bin/python3 (python3-llvmlite) is not installed"
R=$KDET_SOURCE_DIR/python/kdet_stage/llvmlite_ptx.py
IN=$EX/nvvm/llvm7/row_softmax.ll
# In one process at the default run count (enough to catch a 1-in-16 rate): DETERMINISTIC.
expect_exit 0 "$KDET" run "$IN" --py "$R:compile" --python "$PY" --process same --seed 5 \
  --out "$T/same" -- -mcpu=sm_80
expect_output '^verdict +DETERMINISTIC: all 72 runs'
for p in fresh both; do # 8 runs each: one output, too few runs to call it deterministic
  expect_exit 0 "$KDET" run "$IN" --py "$R:compile" --python "$PY" --process "$p" -n 8 --seed 5 \
    --out "$T/$p" -- -mcpu=sm_80
  expect_output '^verdict +NO VARIANCE SEEN in 8 runs'
  expect_output 'compiler  python: .*llvmlite 0\.'
done
"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kdet_stage import llvmlite_ptx as m
sys.stdout.buffer.write(m.compile(open(sys.argv[2], "rb").read(), ["-mcpu=sm_80"]))' \
  "$KDET_SOURCE_DIR/python" "$IN" >"$T/want.ptx"
grep -q '\.target sm_80' "$T/want.ptx" || fail "the recipe made no sm_80 PTX"
for p in same fresh both; do
  cmp "$T/want.ptx" "$T"/$p/variants/*/output || fail "--process $p kept other bytes than the recipe returned"
done
# A module with a call (tiled_matmul calls load_or_zero): one process numbers its call sites on.
CALLS=$EX/nvvm/llvm7/tiled_matmul.ll
expect_exit 1 "$KDET" run "$CALLS" --py "$R:compile" --python "$PY" --process same --unnamed natural \
  -n 4 --seed 6 -- -mcpu=sm_80
expect_output 'differs: output: differ only in comments or whitespace'
expect_exit 0 "$KDET" run "$CALLS" --py "$R:compile" --python "$PY" --process fresh --unnamed natural \
  -n 4 --seed 6 -- -mcpu=sm_80
# A module the recipe rejects is a failed run with the reason, not a kdet error.
printf 'define void @f( {\n' >"$T/bad.ll"
expect_exit 3 "$KDET" run "$T/bad.ll" --py "$R:compile" --python "$PY" --process same -n 2
expect_output 'RuntimeError: LLVM IR parsing error'
echo "ok: llvmlite recipe"
