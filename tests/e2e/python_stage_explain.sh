#!/usr/bin/env bash
# tier: slow
# python_stage_explain.sh: kdet explain on a Python stage whose output follows the C heap names
# the heap among the causes (inside one process: compile history and the heap layout), and
# on a stage that follows Python's hash seed names hashseed alone.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
D=$KDET_SOURCE_DIR/tests/data/python_stages
W=$D/words.txt
expect_exit 1 "$KDET" explain "$W" --py "$D/heap_order.py:compile" --python "$PY" -n 16 --seed 11 \
  --json "$T/h.json"
cause=$(json_eval "$T/h.json" '",".join(sorted(d["cause"]))')
[[ ,$cause, == *,heap,* ]] || { cat "$T/out"; fail "the cause should name the heap: $cause"; }
expect_output 'the heap layout'

expect_exit 1 "$KDET" explain "$W" --py "$D/hash_order.py:compile" --python "$PY" -n 12 --seed 12
expect_output "EXPLAINED: varies with Python's hash seed \(PYTHONHASHSEED\); nothing else matters"
echo "ok: python stage explain"
