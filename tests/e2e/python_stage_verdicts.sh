#!/usr/bin/env bash
# tier: quick
# python_stage_verdicts.sh: kdet run --py FILE:FUNCTION calls a Python stage in one interpreter
# per worker. A stage whose output follows the C heap (the order of the addresses of blocks it
# mallocs) is NONDETERMINISTIC with runs in one interpreter (its history and kdet's churn move
# the heap) and with --process both, and DETERMINISTIC in fresh interpreters started alike (kdet
# adds no variation). A stage that follows Python's hash seed varies only with --hashseed vary.
# The kept output is exactly the bytes the function returned.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
D=$KDET_SOURCE_DIR/tests/data/python_stages
W=$D/words.txt

# In one interpreter, with churn between runs: the seed's repro loop.
expect_exit 1 "$KDET" run "$W" --py "$D/heap_order.py:compile" --python "$PY" --process same \
  --heap churn -n 12 --seed 1
expect_output 'NONDETERMINISTIC'
expect_output 'compiler  python: .*heap_order\.py'
expect_output 'regimes   inside one process only'
# The default: both regimes, every factor varied.
expect_exit 1 "$KDET" run "$W" --py "$D/heap_order.py:compile" --python "$PY" -n 12 --seed 2
expect_output 'NONDETERMINISTIC'
# Fresh interpreters with every factor fixed give one output.
expect_exit 0 "$KDET" run "$W" --py "$D/heap_order.py:compile" --python "$PY" --process fresh \
  --heap none --aslr off --hashseed fixed --unnamed natural -n 8 --seed 3
expect_output '^verdict +NO VARIANCE SEEN in 8 runs'

# The working folder is not on the interpreter's path: a module there shadows none of the
# worker's, and its listing (which a busy folder such as /tmp changes between runs) never shapes
# a fresh interpreter's heap (it did: 1 run in 60 gave another order above).
mkdir -p "$T/cwd"
printf 'raise ImportError("the working folder was searched")\n' >"$T/cwd/platform.py"
(cd "$T/cwd" && expect_exit 0 "$KDET" run "$W" --py "$D/exact.py:compile" --python "$PY" \
  --process fresh --unnamed natural -n 2)

# Python's hash seed: a set of str's order follows it, in fresh interpreters.
expect_exit 1 "$KDET" run "$W" --py "$D/hash_order.py:compile" --python "$PY" --process fresh \
  --unnamed natural --hashseed vary -n 8 --seed 4
expect_output 'NONDETERMINISTIC'
expect_exit 0 "$KDET" run "$W" --py "$D/hash_order.py:compile" --python "$PY" --process fresh \
  --unnamed natural --hashseed fixed -n 8 --seed 4
# It acts across processes only: named with --process same, kdet says so.
expect_exit 0 "$KDET" run "$W" --py "$D/hash_order.py:compile" --python "$PY" --process same \
  --unnamed natural --hashseed vary -n 4 --seed 4
expect_output 'hashseed=vary acts only across processes'

# The output kept is the function's bytes, NULs and invalid UTF-8 included; options arrive as a list.
expect_exit 0 "$KDET" run "$W" --py "$D/exact.py:compile" --python "$PY" --process same -n 3 \
  --out "$T/exact" -- -a 'b c'
"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import exact
sys.stdout.buffer.write(exact.compile(open(sys.argv[2], "rb").read(), ["-a", "b c"]))' "$D" "$W" >"$T/want"
n=0
for f in "$T"/exact/variants/*/output; do
  cmp "$T/want" "$f" || fail "kept output $f differs from what the function returned"
  n=$((n + 1))
done
expect_eq "variants kept" "$n" 1
[[ $(json_get "$T/exact/result.json" '["compiler"]["backend"]') == python ]] || fail "JSON backend"
# A stage that writes under tempfile.mkdtemp(), in one interpreter with TMPDIR moved every run
# (tmpdir=vary removes the last run's folder): Python's tempfile must follow TMPDIR, not keep
# the first run's folder (Triton's ttgir -> llir recipe failed 19 of 20 runs so on the GPU host).
expect_exit 0 "$KDET" run "$W" --py "$D/temp_files.py:compile" --python "$PY" --process same \
  --tmpdir vary --heap none --unnamed natural -n 6 --seed 5
expect_output '^verdict +NO VARIANCE SEEN in 6 runs'
echo "ok: python stage verdicts"
