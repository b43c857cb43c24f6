#!/usr/bin/env bash
# tier: quick threads
# kdet run's command line: bad input is exit 2 naming the culprit, results
# are never overwritten, the seed reproduces, and Ctrl-C keeps what ran.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
[[ -f $FAKE ]] || skip "fake compilers not built"
IN=$EX/nvvm/llvm7/saxpy.ll

expect_exit 2 "$KDET" run "$T/missing.ll";                 expect_output 'input .*missing.ll: No such file'
expect_exit 2 "$KDET" run "$IN" --process sometimes;       expect_output "--process: 'sometimes' is not valid; use both, same or fresh"
expect_exit 2 "$KDET" run "$IN" --lib "$T/nope.so";        expect_output '--lib .*nope.so'
expect_exit 2 "$KDET" run "$IN" --lib "$EX/README.md";     expect_output 'cannot load the nvvm compiler'
expect_exit 2 "$KDET" run "$IN" --env NOEQUALS;            expect_output '--env NOEQUALS: expected KEY=VALUE'
expect_exit 2 "$KDET" run "$IN" --runs 5 --max-rate 0.1;   expect_output 'give one of them'
expect_exit 2 "$KDET" run "$T/x.weird" 2>/dev/null || true
touch "$T/x.weird"
expect_exit 2 "$KDET" run "$T/x.weird";                    expect_output "cannot tell the backend"
expect_exit 2 "$KDET" run "$IN" --cmd 'no-such-program {input}'; expect_output "not found"
expect_exit 2 "$KDET" run "$IN" --cmd 'cat {input}' --process same; expect_output 'exec runs a fresh compiler process'
expect_exit 2 "$KDET" rnu;                                 expect_output "did you mean 'run'"
expect_exit 0 "$KDET" --help;                              expect_output 'Exit codes:'
expect_output '130  interrupted'

# --max-rate picks the number of runs.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" --max-rate 0.15 --json "$T/m.json" -- -fake-mode=echo
[[ $(json_get "$T/m.json" '["runs"]["completed"]') == 19 ]] || fail "--max-rate 0.15 should mean 19 runs"

# --out never overwrites a recorded result.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 3 --out "$T/o" -- -fake-mode=echo
before=$(sha1sum "$T/o/result.json")
expect_exit 2 "$KDET" run "$IN" --lib "$FAKE" -n 3 --out "$T/o" -- -fake-mode=echo
expect_output 'already holds a kdet result'
[[ $(sha1sum "$T/o/result.json") == "$before" ]] || fail "result.json changed"
[[ $(json_get "$T/o/result.json" '["schema"]') == kdet.run/1 ]] || fail "schema"
for k in os kernel glibc cpu; do
  [[ -n $(json_get "$T/o/result.json" "[\"environment\"][\"$k\"]") ]] || fail "environment.$k"
done
[[ $(json_get "$T/o/result.json" '["kdet"]["command_line"]') == *"run "* ]] || fail "command line recorded"

# JSON on stdout keeps stdout clean; the summary goes to stderr.
"$KDET" run "$IN" --lib "$FAKE" -n 2 --json - -- -fake-mode=echo 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["verdict"]=="deterministic"'

# The seed reproduces the churn: the same seed gives the same sequence of variants.
"$KDET" run "$IN" --lib "$FAKE" -n 12 --seed 0x5eed --aslr off --unnamed natural --json "$T/s1.json" -- -fake-mode=heaporder >/dev/null || true
"$KDET" run "$IN" --lib "$FAKE" -n 12 --seed 0x5eed --aslr off --unnamed natural --json "$T/s2.json" -- -fake-mode=heaporder >/dev/null || true
seq1=$(json_eval "$T/s1.json" '[r["variant"] for r in d["records"]]')
seq2=$(json_eval "$T/s2.json" '[r["variant"] for r in d["records"]]')
[[ $seq1 == "$seq2" ]] || fail "same seed, ASLR off: the run sequence should repeat"

# Ctrl-C: exit 130, and the runs done so far are written. The process checks see this test's
# workers only (test_pids: the marker in their environment), never other kdet runs on the machine.
# --unnamed natural: no probes of varied levels, whose short-lived workers (a hanging compile
# is killed at the probe's timeout) could be the worker seen below and be gone the next moment.
"$KDET" run "$IN" --lib "$FAKE" -n 1000 --timeout 60 --unnamed natural --out "$T/int" -- -fake-mode=hang >/dev/null 2>&1 &
pid=$!
# Wait until a compile is under way (the probe has loaded the compiler), then interrupt.
for _ in $(seq 200); do
  [[ -n $(test_pids __worker) ]] && break
  sleep 0.1
done
[[ -n $(test_pids __worker) ]] || fail "no worker of this run seen in 20 s"
sleep 0.5
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[[ $rc == 130 ]] || fail "interrupted run should exit 130, got $rc"
[[ -f $T/int/result.json ]] || fail "interrupted run should still write its result"
[[ $(json_get "$T/int/result.json" '["interrupted"]') == True ]] || fail "interrupted flag"
wait_no_pids 5 __worker || fail "workers left behind: $(test_pids __worker)"
echo "ok: cli"
