#!/usr/bin/env bash
# tier: slow
# python_stage_reduce.sh: kdet reduce with a Python stage as the oracle's compiler: the
# heap-following stage's input (one word a line) shrinks and still varies, and the
# reproducer's kdet run command names the stage.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
D=$KDET_SOURCE_DIR/tests/data/python_stages
tr ' ' '\n' <"$D/words.txt" >"$T/words.txt"
expect_exit 0 "$KDET" reduce "$T/words.txt" --py "$D/heap_order.py:compile" --python "$PY" \
  --process same --heap churn --cvise none -o "$T/small.txt" --seed 13
before=$(wc -c <"$T/words.txt")
after=$(wc -c <"$T/small.txt")
((after < before)) || fail "not reduced: $before -> $after bytes"
grep -q -- "--py $D/heap_order.py:compile" "$T/small.txt.repro/README.md" ||
  fail "the reproducer's command does not name the stage"
expect_exit 1 "$KDET" run "$T/small.txt" --py "$D/heap_order.py:compile" --python "$PY" --process same \
  --heap churn -n 16 --seed 14
echo "ok: python stage reduce ($before -> $after bytes)"
