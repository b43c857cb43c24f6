#!/usr/bin/env bash
# kdet explain names the factor behind each fake compiler's variance.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CC=$KDET_FAKES_DIR/fake_cc
[[ -f $FAKE && -x $CC ]] || skip "fake compilers not built"
IN=$EX/nvvm/llvm7/saxpy.ll

# Output that follows heap addresses: heap, ASLR and process reuse each cause it; only fixing all of them helps.
expect_exit 1 "$KDET" explain "$IN" --lib "$FAKE" -n 20 --json "$T/h.json" -- -fake-mode=heaporder
expect_output 'EXPLAINED: deterministic when heap=none, aslr=off, process=fresh'
cause=$(json_eval "$T/h.json" '",".join(sorted(d["cause"]))')
for f in heap aslr process; do [[ ,$cause, == *,$f,* ]] || fail "cause should include $f: $cause"; done
[[ ,$cause, != *,time,* && ,$cause, != *,locale,* && ,$cause, != *,umask,* ]] || fail "unrelated factor blamed: $cause"
[[ $(json_get "$T/h.json" '["schema"]') == kdet.explain/1 ]] || fail "schema"

# One factor each: time, input path, an environment variable, the pid, the working directory.
declare -A want=([time]="the time" [path]="the input path" [cwd]="the working directory" [pid]="the pid")
for mode in "${!want[@]}"; do
  expect_exit 1 "$KDET" explain "$IN" --cmd "$CC $mode {input} {output}" -n 10
  expect_output "EXPLAINED: varies with ${want[$mode]}; nothing else matters"
done
expect_exit 1 "$KDET" explain "$IN" --cmd "$CC env {input} {output}" --env-vary FAKE_CC_ENV=a,b,c -n 10
expect_output 'EXPLAINED: varies with FAKE_CC_ENV; nothing else matters \(deterministic when FAKE_CC_ENV=a\)'

# A deterministic compiler: deterministic, with the bound.
expect_exit 0 "$KDET" explain "$IN" --cmd "$CC echo {input} {output}" -n 10
expect_output 'DETERMINISTIC: deterministic with every factor varied: 10 runs, one output; fewer than 26% of runs'

# Variance kdet's factors cannot reach: say inconclusive, do not invent a cause.
expect_exit 1 "$KDET" explain "$IN" --cmd "$CC garbage {input} {output}" -n 10
expect_output 'INCONCLUSIVE: varies even with every factor fixed'

# A compiler that always fails: exit 3 with the reason.
expect_exit 3 "$KDET" explain "$IN" --cmd "$CC fail {input} {output}" -n 4
expect_output 'FAILED: the compiler failed on every run even with every factor fixed'
expect_exit 2 "$KDET" explain "$IN" --cmd "$CC echo {input} {output}" --factors nonsense
expect_output "--factors: 'nonsense' is not a factor"
echo "ok: explain on fakes"
