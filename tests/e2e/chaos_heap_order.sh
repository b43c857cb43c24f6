#!/usr/bin/env bash
# tier: quick
# chaos_heap_order.sh: libkdet_chaos.so exposes output that depends on heap
# addresses, and its seed reproduces each variant (docs/CHAOS.md).
#
# Uses the fake compiler fake_cc in heaporder mode (it orders lines by a table
# keyed on heap addresses, as a pointer-keyed hash map in a compiler would).
# With ASLR off (setarch -R): without the library 6 runs give 1 output; with
# KDET_CHAOS_SEED=1..6 they give at least 3 different outputs; the same seed
# twice gives the same output.
# Env: KDET (libkdet_chaos.so lies next to it), KDET_FAKES_DIR (fake_cc).
# Exit 0 pass, 1 fail, 77 skipped (fake_cc absent, or ASLR cannot be turned off).
source "$(dirname "$0")/lib/common.bash"
lib=$(dirname "$KDET")/libkdet_chaos.so
need_fakes fake_cc
fake=$FAKES/fake_cc
[[ -f $lib ]] || fail "$lib not built"
setarch -R true 2>/dev/null ||
  skip "setarch -R (personality ADDR_NO_RANDOMIZE) not permitted here"

for i in $(seq 1 60); do echo "  mov.u32 %r$i, $((i * 7));"; done >"$T/in.ptx"

# run ENV...: one compile with ASLR off; prints the output's hash.
run() {
  env "$@" setarch -R "$fake" heaporder "$T/in.ptx" "$T/out" >/dev/null
  cksum <"$T/out" | cut -d' ' -f1
}

plain=()
for i in 1 2 3 4 5 6; do plain+=("$(run KDET_CHAOS_SEED=$i)"); done
n_plain=$(printf '%s\n' "${plain[@]}" | sort -u | wc -l)
if ((n_plain != 1)); then
  echo "chaos_heap_order: SKIP: $n_plain outputs without the library and ASLR off; addresses are not fixed here"
  exit 77
fi

chaos=()
for i in 1 2 3 4 5 6; do chaos+=("$(run LD_PRELOAD="$lib" KDET_CHAOS_SEED=$i)"); done
n_chaos=$(printf '%s\n' "${chaos[@]}" | sort -u | wc -l)
again=$(run LD_PRELOAD="$lib" KDET_CHAOS_SEED=3)

status=0
if ((n_chaos < 3)); then
  echo "chaos_heap_order: FAIL: only $n_chaos distinct outputs from 6 seeds"
  status=1
fi
if [[ $again != "${chaos[2]}" ]]; then
  echo "chaos_heap_order: FAIL: seed 3 gave $again, then ${chaos[2]}: a seed must reproduce its output"
  status=1
fi
echo "chaos_heap_order: without the library 1 output in 6 runs; with seeds 1..6: $n_chaos outputs; seed 3 reproduced: $([[ $again == "${chaos[2]}" ]] && echo yes || echo no)"
exit $status
