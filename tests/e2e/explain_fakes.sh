#!/usr/bin/env bash
# tier: slow
# kdet explain names the factor behind each fake compiler's variance.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CC=$KDET_FAKES_DIR/fake_cc
[[ -f $FAKE && -x $CC ]] || skip "fake compilers not built"
IN=$EX/nvvm/llvm7/saxpy.ll

# Output that follows heap addresses (inside a process and across): heap, ASLR and process reuse each
# cause it; only fixing all of them helps, and the conclusion names the mechanism.
if heap_follows_aslr; then
  # --min-cell-runs 10: with ASLR alone varied this input gives one of 16 orders, so a cell of 5
  # fresh runs (the size this baseline rate gets) all gave one with probability 16^-4 = 1.5e-5,
  # and ASLR went unnamed; 16^-9 with 10 runs.
  expect_exit 1 "$KDET" explain "$IN" --lib "$FAKE" -n 20 --min-cell-runs 10 --json "$T/h.json" \
    -- -fake-mode=heaporder
  expect_output 'EXPLAINED: deterministic when process=fresh, heap=none,? (and )?aslr=off'
  expect_output 'it follows memory addresses: compile history in one process, the heap layout(,| and) ASLR'
  expect_output 'regimes     across processes and inside one process'
  cause=$(json_eval "$T/h.json" '",".join(sorted(d["cause"]))')
  for f in heap aslr process; do [[ ,$cause, == *,$f,* ]] || fail "cause should include $f: $cause"; done
  [[ ,$cause, != *,time,* && ,$cause, != *,locale,* && ,$cause, != *,umask,* ]] || fail "unrelated factor blamed: $cause"
  [[ $(json_get "$T/h.json" '["schema"]') == kdet.explain/1 ]] || fail "schema"
  [[ $(json_eval "$T/h.json" '[c for c in d["cells"] if c["name"] == "all varied"][0]["varied"][0]') == process ]] ||
    fail "the baseline varies process (both regimes)"
else
  echo "$NAME: not checked in this $KDET_SANITIZER build: heap-order causes (its allocator fixes the heap's address)"
fi

# Output that follows the library's load address: one value per process, so only across processes.
expect_exit 1 "$KDET" explain "$IN" --lib "$FAKE" -n 20 -- -fake-mode=loadaddr
expect_output 'EXPLAINED: varies with ASLR; nothing else matters \(deterministic when aslr=off\)'
# ... and leaving process out (fresh processes only) still varies ASLR, across processes.
expect_exit 1 "$KDET" explain "$IN" --lib "$FAKE" -n 12 --skip process -- -fake-mode=loadaddr
expect_output 'EXPLAINED: varies with ASLR'
expect_output 'not tested: process \(left out by --factors/--skip\)'

# A library whose output follows the clock (the day).
if [[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]]; then
  expect_exit 1 "$KDET" explain "$IN" --lib "$FAKE" -n 12 -- -fake-mode=date
  expect_output 'EXPLAINED: varies with the time; nothing else matters \(deterministic when time=fixed\)'
fi

# Two factors together: the working directory leaks only when it and TMPDIR share a folder.
expect_exit 1 env -u TMPDIR "$KDET" explain "$IN" --cmd "$CC pair {input} {output}" -n 10
expect_output 'EXPLAINED: varies only when cwd and tmpdir vary together; fixing (cwd|tmpdir) alone is enough'

# One factor each: time, input path, an environment variable, the pid, the working directory.
declare -A want=([time]="the time" [path]="the input path" [cwd]="the working directory" [pid]="the pid")
for mode in "${!want[@]}"; do
  expect_exit 1 "$KDET" explain "$IN" --cmd "$CC $mode {input} {output}" -n 10
  expect_output "EXPLAINED: varies with ${want[$mode]}; nothing else matters"
done
# A fixed seed fixes which value each run draws: unseeded, the 10 baseline runs all drew one value
# (3^-9 = 5e-5), or the single cell sized from their rate all did (3^-8 at 9 runs) now and then.
expect_exit 1 "$KDET" explain "$IN" --cmd "$CC env {input} {output}" --env-vary FAKE_CC_ENV=a,b,c -n 10 --seed 7
expect_output 'EXPLAINED: varies with FAKE_CC_ENV; nothing else matters \(deterministic when FAKE_CC_ENV=a\)'

# A deterministic compiler: deterministic, with the bound.
expect_exit 0 "$KDET" explain "$IN" --cmd "$CC echo {input} {output}" -n 10
expect_output 'NO VARIANCE SEEN: one output with every factor varied, across processes \(the compiler is a new process every run\); no variance seen in 10 runs: a rate above 26% would have shown'

# Variance kdet's factors cannot reach: say inconclusive, do not invent a cause.
expect_exit 1 "$KDET" explain "$IN" --cmd "$CC garbage {input} {output}" -n 10
expect_output 'INCONCLUSIVE: varies even with every (tested )?factor fixed'
# With factors left out, those are named before the compiler is blamed.
expect_exit 1 "$KDET" explain "$IN" --cmd "$CC garbage {input} {output}" -n 10 --factors aslr
expect_output 'not tested: .*cwd.* \(left out by --factors/--skip\); test those before blaming the compiler'

# A compiler that always fails: exit 3 with the reason.
expect_exit 3 "$KDET" explain "$IN" --cmd "$CC fail {input} {output}" -n 4
expect_output 'FAILED: the compiler failed on every run, even at its natural levels'
# Options explain does not take are named, with what to use instead.
expect_exit 2 "$KDET" explain "$IN" --process same -- -arch=compute_80
expect_output 'kdet explain does not take --process: explain varies and fixes process itself; choose the factors it tests with --factors or --skip'
expect_exit 2 "$KDET" run "$IN" --skip heap
expect_output 'kdet run does not take --skip \(it is an option of kdet explain\)'
expect_exit 2 "$KDET" explain "$IN" --cmd "$CC echo {input} {output}" --factors nonsense
expect_output "--factors: 'nonsense' is not a factor"
echo "ok: explain on fakes"
