#!/usr/bin/env bash
# tier: quick threads
# kdet run against fake compilers that inject what real ones rarely do on
# demand: address-dependent output, crashes, hangs, failures, garbage.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CC=$KDET_FAKES_DIR/fake_cc
[[ -f $FAKE && -x $CC ]] || skip "fake compilers not built (ninja kdet_test_fakes)"
IN=$EX/nvvm/llvm7/saxpy.ll

# Output that follows the library's load address (one value per process): the default covers both
# regimes, so it is caught; --process same (a repro loop) cannot see it and says so.
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 8 --json "$T/la.json" -- -fake-mode=loadaddr
expect_output 'regimes   across processes .* and inside one process'
[[ $(json_eval "$T/la.json" '",".join(d["regimes"]["covered"])') == across-processes,inside-process ]] || fail "regimes covered"
[[ $(json_eval "$T/la.json" '"".join(r["regime"][0] for r in d["records"])') == fsfsfsfs ]] || fail "runs alternate fresh/same"
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 8 --process same -- -fake-mode=loadaddr
expect_output 'inside one process only'
expect_output 'warning   aslr=on acts only across processes'
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 8 --process fresh -- -fake-mode=loadaddr
# Output that follows the clock, or needs two factors together: caught when those factors vary.
if [[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]]; then
  expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 6 --time vary -- -fake-mode=date
fi
expect_exit 1 env -u TMPDIR "$KDET" run "$IN" --cmd "$CC pair {input} {output}" -n 6 --cwd vary --tmpdir vary
expect_exit 0 env -u TMPDIR "$KDET" run "$IN" --cmd "$CC pair {input} {output}" -n 6 --cwd vary --unnamed natural
# None of them passes run's defaults, which vary every factor not named (explain's "all varied").
expect_exit 1 env -u TMPDIR "$KDET" run "$IN" --cmd "$CC pair {input} {output}" -n 6
expect_output 'varied    .*cwd=vary.*tmpdir=vary'
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 8 -- -fake-mode=heaporder
expect_exit 1 "$KDET" run "$IN" --cmd "$CC heaporder {input} {output}" -n 8
expect_exit 1 "$KDET" run "$IN" --cmd "$CC path {input} {output}" -n 4
if [[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]]; then
  expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 6 -- -fake-mode=date
  expect_exit 1 "$KDET" run "$IN" --cmd "$CC time {input} {output}" -n 4
fi
# A deterministic compiler passes them, and the probes spent are not runs of the result.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 8 --json "$T/d.json"
[[ $(json_get "$T/d.json" '["defaults"]["probe_runs"]') -ge 2 ]] || fail "defaults were probed"
[[ $(json_get "$T/d.json" '["runs"]["completed"]') == 8 ]] || fail "8 runs, probes apart"
# Output that follows heap addresses: churn in one process makes it vary ...
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 20 --seed 1 --json "$T/h.json" -- -fake-mode=heaporder
expect_output 'NONDETERMINISTIC'
[[ $(json_get "$T/h.json" '["rate"]["differing_runs"]') -ge 1 ]] || fail "differing runs"
# Each variant says how it differs from the most common one (kdet diff's classification).
# The fake prints the same lines in heap order: "ordering differences only", as diffoscope says.
[[ $(json_get "$T/h.json" '["variants"][1]["difference"]') == "ptx: ordering differences only: the same lines in another order"* ]] || fail "variant difference"
expect_output 'differs: ptx: ordering differences only'
# ... fresh processes with ASLR on make it vary ...
if heap_follows_aslr; then
  expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 20 --process fresh --heap none --aslr on -- -fake-mode=heaporder
else
  echo "$NAME: not checked in this $KDET_SANITIZER build: ASLR varying the heap (its allocator fixes the heap's address)"
fi
# ... and with every factor fixed kdet adds no variation: one variant, as under setarch -R.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 32 --process fresh --heap none --aslr off --threads 0 --unnamed natural --json "$T/f.json" -- -fake-mode=heaporder
expect_output 'NO VARIANCE SEEN in 32 runs \(a rate of up to 8\.9% could go unseen\)'
expect_output 'no variance seen in 32 runs: a rate above 8\.9% would have shown \(95% confidence\)'
[[ $(json_get "$T/f.json" '["runs"]["workers_started"]') == 32 ]] || fail "a fresh worker per run"
# ... also in parallel workers.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 16 -j 2 --process fresh --heap none --aslr off --unnamed natural -- -fake-mode=heaporder

# A deterministic fake stays deterministic under churn and threads.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 10 --threads 4 -- -fake-mode=echo

# Crash: every run is recorded with its signal, exit 3, and kdet keeps going.
expect_exit 3 "$KDET" run "$IN" --lib "$FAKE" -n 3 --out "$T/crash" -- -fake-mode=crash
expect_output 'FAILED: the compiler failed on every run \(3 crashed: compiler killed by signal 11 \(SIGSEGV\)\)'
grep -q 'status: crashed' "$T"/crash/variants/*/failure.txt || fail "failure.txt"
[[ $(wc -l <"$T/crash/runs.jsonl") == 3 ]] || fail "3 run records"
expect_exit 3 "$KDET" run "$IN" --lib "$FAKE" -n 2 -- -fake-mode=abort
expect_output 'SIGABRT'

# Hang: killed at the timeout, recorded as timed out, and kdet returns promptly; a plain
# compile that hangs costs one probe, and no level is probed. A TSan-built worker cannot load the
# chaos allocator (both replace malloc), so there the heap is held still: a plain compile that
# hangs cannot show which level breaks the worker.
hang_levels=()
[[ ${KDET_SANITIZER:-} == *TSan* ]] && hang_levels=(--heap none)
start=$(date +%s)
expect_exit 3 "$KDET" run "$IN" --lib "$FAKE" -n 2 --timeout 1 "${hang_levels[@]}" -- -fake-mode=hang
expect_output '2 timed-out'
expect_output 'the plain compile \(every factor at its natural level\) gave no result in 1\.[0-9] s: no level is probed'
(( $(date +%s) - start < 20 )) || fail "hang handling took too long"

# Failure: the compiler's error and log are recorded.
expect_exit 3 "$KDET" run "$IN" --lib "$FAKE" -n 2 --out "$T/fail" -- -fake-mode=fail
expect_output 'NVVM_ERROR_COMPILATION'
grep -rq 'fake: compilation failed (requested)' "$T/fail/logs" || fail "compiler log kept"

# Garbage: random bytes are data, each run its own variant.
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 5 -- -fake-mode=garbage
expect_output '5 distinct outcomes in 5 runs'
# Junk written to stdout/stderr by the compiler does not disturb the protocol.
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 5 -- -fake-mode=print

# A crash in some runs only is nondeterminism (success vs crash), with the first run of each.
expect_exit 1 "$KDET" run "$IN" --lib "$FAKE" -n 9 --process same --json "$T/cr.json" -- -fake-mode=crash-rate=3
[[ $(json_get "$T/cr.json" '["variants"][1]["status"]') == crashed ]] || fail "crash variant"
[[ $(json_get "$T/cr.json" '["variants"][1]["first_run"]') == 3 ]] || fail "first crashing run"

# exec fakes: exit status, signal and hang are outcomes too.
expect_exit 3 "$KDET" run "$IN" --cmd "$CC fail {input} {output}" -n 2
expect_output 'exited 1'
expect_exit 3 "$KDET" run "$IN" --cmd "$CC crash {input} {output}" -n 2
expect_output 'SIGSEGV'
expect_exit 3 "$KDET" run "$IN" --cmd "$CC hang {input} {output}" -n 1 --timeout 1
expect_output 'timed-out'
expect_exit 1 "$KDET" run "$IN" --cmd "$CC heaporder {input} {output}" -n 20
expect_exit 0 "$KDET" run "$IN" --cmd "$CC heaporder {input} {output}" -n 10 --aslr off --unnamed natural
expect_exit 0 "$KDET" run "$IN" --cmd "$CC echo {input} {output}" -n 5
# An environment variable reaches the compiler.
expect_exit 0 "$KDET" run "$IN" --cmd "$CC env {input} {output}" -n 2 --env FAKE_CC_ENV=hello --out "$T/env"
grep -q 'FAKE_CC_ENV: hello' "$T"/env/variants/*/output || fail "--env did not reach the compiler"
echo "ok: fakes"
