#!/usr/bin/env bash
# tier: quick
# kdet exec --deterministic: the fixed factors reach the command and its children.
source "$(dirname "$0")/lib/common.bash"

out=$("$KDET" exec --deterministic -- sh -c 'echo $LC_ALL $OMP_NUM_THREADS $OPENBLAS_NUM_THREADS $TZ; cat /proc/self/personality; umask')
[[ $(sed -n 1p <<<"$out") == "C 1 1 UTC0" ]] || fail "environment: $out"
(( (16#$(sed -n 2p <<<"$out")) & 16#0040000 )) || fail "ASLR not disabled: $out"
[[ $(sed -n 3p <<<"$out") == 0022 ]] || fail "umask: $out"

# Heap addresses repeat exactly under it: the heap-order fake gives one output in 5 runs.
CC=$KDET_FAKES_DIR/fake_cc
if [[ -x $CC ]]; then
  for i in 1 2 3 4 5; do "$KDET" exec --deterministic -- "$CC" heaporder "$EX/nvvm/llvm7/saxpy.ll" "$T/o$i"; done
  [[ $(cat "$T"/o? | md5sum) == $(for i in 1 2 3 4 5; do cat "$T/o1"; done | md5sum) ]] || fail "heaporder varied under kdet exec"
  # ...and it does vary without it (otherwise the check above proves nothing). ASLR moves the
  # heap by whole pages, so this input has 16 orders, about equally likely: n runs all give one
  # with probability about 16^-(n-1), 1e-6 at 6 runs (too often for CI), 1e-13 at 12.
  for i in $(seq 1 12); do "$CC" heaporder "$EX/nvvm/llvm7/saxpy.ll" "$T/p$i"; done
  [[ $(md5sum "$T"/p* | awk '{print $1}' | sort -u | wc -l) -gt 1 ]] || fail "heaporder should vary with ASLR on"
fi

# --fix all: pid 2, the fixed clock, a trimmed environment.
out=$(FOO=bar "$KDET" exec --deterministic --fix all --timeout 20 -- sh -c 'echo $$ $(date -u +%Y) ${FOO:-unset}')
[[ $out == "2 2020 unset" ]] || fail "--fix all: $out"
out=$(FOO=bar "$KDET" exec --deterministic --fix env --keep-env FOO -- sh -c 'echo ${FOO:-unset}')
[[ $out == bar ]] || fail "--keep-env: $out"

# The command's exit status is kdet's; errors are exit 2.
expect_exit 7 "$KDET" exec --deterministic -- sh -c 'exit 7'
expect_exit 2 "$KDET" exec --deterministic --fix bogus -- true
expect_output "--fix: 'bogus' is not a factor"
# One meaning per word: threads are kdet run's allocating threads; thread-count variables are threadvars.
expect_exit 2 "$KDET" exec --deterministic --fix threads -- true
expect_output "--fix: 'threads' is not a factor kdet exec can fix \(threads are the extra allocating threads"
expect_exit 0 "$KDET" exec --deterministic --fix threadvars --print -- true
expect_output 'fixing threadvars'
expect_exit 2 "$KDET" exec -- true
expect_exit 127 "$KDET" exec --deterministic -- /no/such/program
echo "ok: exec"
