#!/usr/bin/env bash
# tier: quick threads
# run_out_kill.sh: `kdet run --out DIR` appends each run to DIR/runs.jsonl as it
# finishes, so a SIGKILLed run keeps the runs done; planted links in DIR are refused.
#  1. -n 100000 fresh-process runs of the echo fake, SIGKILLed once 20 lines are in runs.jsonl:
#     every line is a whole JSON record, and a rerun into DIR is refused (a recorded result).
#  2. an uninterrupted run rewrites runs.jsonl in run order, one line per run.
#  3. a link planted at DIR/variants is refused (exit 2 naming it); its target stays empty.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
FAKE=${KDET_FAKES_DIR:-}/libfakenvvm.so
[[ -f $FAKE ]] || skip "$FAKE not built"
IN=$EX/nvvm/llvm7/saxpy.ll
[[ -f $IN ]] || IN=$(ls "$EX"/nvvm/llvm7/*.ll | head -1)

# 1. SIGKILL keeps the runs done.
"$KDET" run "$IN" --lib "$FAKE" -n 100000 --process fresh --out "$T/k" -q -- -fake-mode=echo >/dev/null 2>&1 &
pid=$!
# Up to 5 minutes: 20 fresh workers take 0.5 s unsanitized, but 5 to 15 times that under
# ThreadSanitizer, and more on a loaded machine (a bound of 30 s was too close).
for _ in $(seq 1 6000); do
  [[ -f $T/k/runs.jsonl ]] && (($(wc -l <"$T/k/runs.jsonl") >= 20)) && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
lines=$(wc -l <"$T/k/runs.jsonl")
((lines >= 20)) || fail "only $lines runs survived the SIGKILL"
python3 - "$T/k/runs.jsonl" <<'PY'
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    assert "variant" in json.dumps(r), f"line {n} is not a run record"
PY
expect_exit 2 "$KDET" run "$IN" --lib "$FAKE" -n 2 --out "$T/k" -- -fake-mode=echo
expect_output "already holds a kdet result"

# 2. A finished run: one line per run, in order.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 6 --jobs 3 --out "$T/ok" -q -- -fake-mode=echo
[[ $(wc -l <"$T/ok/runs.jsonl") == 6 ]] || fail "runs.jsonl should hold 6 lines"
json_get "$T/ok/result.json" '["schema"]' >/dev/null

# 3. A planted link inside DIR is refused; nothing is written through it.
mkdir -p "$T/planted" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/planted/variants"
expect_exit 2 "$KDET" run "$IN" --lib "$FAKE" -n 2 --out "$T/planted" -q -- -fake-mode=echo
expect_output "planted/variants"
[[ -z $(ls -A "$T/elsewhere") ]] || fail "files were written through the planted link"
echo "run_out_kill: PASS"
