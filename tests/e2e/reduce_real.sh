#!/usr/bin/env bash
# tier: slow
# kdet reduce on NVVM IR as real frontends write it (tests/data/reduce_real/): numba's own
# saxpy (quoted mangled names of 200+ characters, a wrapper kernel calling an inner function,
# `{` on a line of its own, !dbg metadata), numba-style and Triton-style IR written by hand
# (a switch, quoted labels, numbered values and blocks, inline asm, opaque `ptr`). Each is
# reduced under the heap-order fake and must end much smaller, still varying, and still
# compiling with the real libNVVM (when there is one). Where it is, every candidate is
# compiled by it first (a validating compiler), so IR libNVVM refuses is never accepted.
# A reduction that removes nothing exits 1 and names why its candidates were rejected.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc libfakenvvm.so
D=$KDET_SOURCE_DIR/tests/data/reduce_real
size_of() { stat -c %s "$1"; }
LLVM_AS=$(command -v llvm-as-14 || true)
have_cuda || echo "reduce_real: no CUDA toolkit: candidates are not compiled by the real libNVVM"

# vcc ARCH NEED: a compiler that varies as the heap-order fake, but fails (exit 3) on IR the
# real libNVVM (-arch=ARCH) refuses, or llvm-as-14 without one (typed-pointer IR only); and
# exit 4 unless a kernel is still defined and the text holds NEED (so the reduction has to
# keep a kernel body, and the instruction passes work).
vcc() {
  local f=$T/vcc-$1-${2// /_}.sh check=":"
  if have_cuda; then
    check="\"$KDET\" run \"\$1\" -n 1 --unnamed natural -q -- -arch=$1 >/dev/null 2>&1 || exit 3"
  elif [[ -n $LLVM_AS && $1 == compute_80 ]]; then
    check="\"$LLVM_AS\" \"\$1\" -o /dev/null 2>/dev/null || exit 3"
  fi
  mkdir -p "$T/checked"
  # Each text is checked once (a test compiles it many times): by its hash, passed or failed.
  cat >"$f" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo vcc 1; exit 0; }
grep -q '"kernel"' "\$1" && grep -q '^define' "\$1" && grep -q '$2' "\$1" || exit 4
h=$T/checked/\$(md5sum <"\$1" | cut -c1-32)
[ -e "\$h.bad" ] && exit 3
if [ ! -e "\$h.ok" ]; then
  ( $check ) || { : >"\$h.bad"; exit 3; }
  : >"\$h.ok"
fi
exec "$FAKES/fake_cc" heaporder "\$1" "\$2"
SH
  chmod +x "$f"
  echo "$f {input} {output}"
}

# check NAME SMALL ARCH MAX_PERCENT: SMALL is at most MAX_PERCENT of the input, varies under
# the heap-order fake, and compiles with the real libNVVM.
check() {
  local orig small
  orig=$(size_of "$D/$1")
  small=$(size_of "$2")
  ((small * 100 <= orig * $4)) || fail "$1: reduced to $small of $orig bytes (want <= $4 %)"
  expect_exit 1 "$KDET" run "$2" --cmd "$FAKES/fake_cc heaporder {input} {output}" -n 16
  if have_cuda; then
    expect_exit 0 "$KDET" run "$2" --unnamed natural -n 1 -- -arch="$3"
  fi
  echo "reduce_real: $1: $orig -> $small bytes"
}

# numba's saxpy through libfakenvvm's heap order: nearly everything goes.
expect_exit 0 "$KDET" reduce "$D/numba_saxpy.ll" --lib "$FAKES/libfakenvvm.so" -o "$T/saxpy.ll" \
  -- -fake-mode=heaporder
expect_output 'pass +ll-functions: [0-9]+ tested, [1-9][0-9]* accepted'
check numba_saxpy.ll "$T/saxpy.ll" compute_80 20

# numba's saxpy with debug info (60 KB): a kernel must stay, and every candidate compiles. Its
# long names get short stand-ins, one table in the README, and the diff of two variants uses
# them.
expect_exit 0 "$KDET" reduce "$D/numba_saxpy_dbg.ll" --cmd "$(vcc compute_80 define)" \
  --unnamed natural -o "$T/dbg.ll"
expect_output 'names +[0-9]+ long names renamed'
check numba_saxpy_dbg.ll "$T/dbg.ll" compute_80 10
grep -q '!dbg' "$T/dbg.ll" && fail "debug info stayed though nothing needs it"
R=$T/dbg.ll.repro
grep -q '_ZN6cudapy' "$T/dbg.ll" && fail "a long name stayed in the result"
grep -Eq '^\| `cudapy_saxpy` \| `_ZN6cudapy8__main__5saxpy' "$R/README.md" || fail "no names table"
grep -q '_ZN6cudapy' "$R/diff.txt" && fail "a long name in diff.txt"
# Lines of 900+ characters before; the kernel's 22 parameters stay (no parameter pass yet).
awk 'length > 400 { exit 1 }' "$R/diff.txt" || fail "diff.txt has lines over 400 characters"

# numba-style typed-pointer IR with a switch and quoted labels; a store must stay.
expect_exit 0 "$KDET" reduce "$D/numba_style_typed.ll" --cmd "$(vcc compute_80 'store float')" \
  --unnamed natural -o "$T/typed.ll"
check numba_style_typed.ll "$T/typed.ll" compute_80 40

# Triton-style opaque-pointer IR (libNVVM's compute_100a dialect); a store must stay.
expect_exit 0 "$KDET" reduce "$D/triton_add_opaque.ll" --cmd "$(vcc compute_100a 'store float')" \
  --unnamed natural -o "$T/opaque.ll"
check triton_add_opaque.ll "$T/opaque.ll" compute_100a 20
grep -q 'ptr addrspace(1)' "$T/opaque.ll" || fail "the opaque dialect changed"

# Nothing can go (every candidate fails to compile): exit 1, and the summary says why.
cp "$D/numba_style_typed.ll" "$T/keep.ll"
cat >"$T/only_input.sh" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo only 1; exit 0; }
cmp -s "\$1" "$T/keep.ll" || exit 3
exec "$FAKES/fake_cc" heaporder "\$1" "\$2"
SH
chmod +x "$T/only_input.sh"
expect_exit 1 "$KDET" reduce "$T/keep.ll" --cmd "$T/only_input.sh {input} {output}" \
  --unnamed natural --keep-names -v -o "$T/none.ll"
expect_output 'only 0\.0 % smaller \(less than --min-reduction 5 %\)'
expect_output 'pass +ll-functions: [0-9]+ tested, 0 accepted, [0-9]+ invalid'
expect_output 'reduce: candidate [0-9]+ bytes \([0-9.]+ % of the original\), ll-functions .*: invalid: a compile error in each of 2 runs'
cmp -s "$T/none.ll" "$T/keep.ll" || fail "SMALL is not the input"
echo "reduce_real: OK"
