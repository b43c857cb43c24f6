#!/usr/bin/env bash
# tier: slow
# explain's budget is counted in runs: on the heap-order fake, with two busy processes beside it
# on the machine, explain concludes what it concludes on an idle machine, only later. The budget
# is small enough to end the experiment early, so what it left untried is the same too.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
heap_follows_aslr || skip "in a ${KDET_SANITIZER} build the worker's allocator is the sanitizer's, so the heap-order fake does not follow addresses"
IN=$EX/nvvm/llvm7/saxpy.ll
ex=(explain "$IN" --lib "$FAKES/libfakenvvm.so" -n 20 --min-cell-runs 10 --seed 11 --color never)

conclude() { # conclude NAME EXTRA...: the conclusion, the cause and what was left untried
  expect_exit 1 "$KDET" "${ex[@]}" "${@:2}" --json "$T/$1.json" -- -fake-mode=heaporder
  json_eval "$T/$1.json" '(d["conclusion"], sorted(d["cause"]), d["untried"])'
}
idle=$(conclude idle)
idle_cut=$(conclude idle_cut --budget-runs 150)

# Two busy loops, each bounded (it stops by itself after 10 minutes) and ended with the test.
busy=()
for i in 1 2; do
  timeout 600 bash -c 'while :; do :; done' &
  busy+=($!)
done
on_exit 'kill "${busy[@]}" 2>/dev/null; wait "${busy[@]}" 2>/dev/null'
loaded=$(conclude loaded)
loaded_cut=$(conclude loaded_cut --budget-runs 150)

expect_eq "the conclusion under load" "$loaded" "$idle"
expect_eq "the conclusion under load, budget cut" "$loaded_cut" "$idle_cut"
[[ $idle == *"deterministic when"*"aslr=off"* ]] || fail "idle: not the heap-order cause: $idle"
[[ $idle_cut == *"the budget of 150 runs ran out"* ]] || fail "the cut budget is not said: $idle_cut"
echo OK
