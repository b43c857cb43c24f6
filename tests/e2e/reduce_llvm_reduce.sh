#!/usr/bin/env bash
# tier: slow
# kdet reduce --llvm-reduce: llvm-reduce-14 (Debian llvm-14) reduces NVVM IR, kdet's oracle
# decides each candidate. On numba's saxpy it reduces; under a compiler that accepts anything
# it drops !nvvmir.version, which libNVVM then refuses, so where libNVVM is here the compiler
# is one that varies as the heap-order fake on what libNVVM compiles, and the result compiles. On IR with debug info, llvm-reduce's LLVM 14 text is refused by libNVVM's
# typed-pointer parser (`spFlags:` and the like), so nothing it writes compiles there: with a
# compiler that is libNVVM, the reduction removes nothing and exits 1, saying so.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc libfakenvvm.so
need_cmd llvm-reduce-14 "Debian llvm-14"
D=$KDET_SOURCE_DIR/tests/data/reduce_real
size_of() { stat -c %s "$1"; }

# cc NAME: a compiler that varies as the heap-order fake on what the real libNVVM compiles
# (each text checked once, by its hash); without libNVVM, the fake alone.
cc() {
  mkdir -p "$T/checked"
  if ! have_cuda; then
    echo "$FAKES/fake_cc heaporder {input} {output}"
    return
  fi
  cat >"$T/vcc.sh" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo vcc 1; exit 0; }
h=$T/checked/\$(md5sum <"\$1" | cut -c1-32)
[ -e "\$h.bad" ] && exit 3
if [ ! -e "\$h.ok" ]; then
  "$KDET" run "\$1" -n 1 --unnamed natural -q -- -arch=compute_80 >/dev/null 2>&1 || { : >"\$h.bad"; exit 3; }
  : >"\$h.ok"
fi
exec "$FAKES/fake_cc" heaporder "\$1" "\$2"
SH
  chmod +x "$T/vcc.sh"
  echo "$T/vcc.sh {input} {output}"
}
CC=$(cc)

expect_exit 0 "$KDET" reduce "$D/numba_saxpy.ll" --cmd "$CC" --unnamed natural -o "$T/saxpy.ll" \
  --llvm-reduce llvm-reduce-14
expect_output 'reduced +[0-9]+ -> [0-9]+ bytes .*, llvm-reduce'
# The oracle's verdicts reach the summary: some accepted, and why the rest were not.
expect_output 'llvm-reduce: [0-9]+ tested, [1-9][0-9]* accepted, ([0-9]+ (stopped varying|invalid|failed|changed kind), )*[0-9]+ bytes removed'
(($(size_of "$T/saxpy.ll") * 2 <= $(size_of "$D/numba_saxpy.ll"))) || fail "less than 50 % smaller"
expect_exit 1 "$KDET" run "$T/saxpy.ll" --cmd "$FAKES/fake_cc heaporder {input} {output}" -n 16
if have_cuda; then
  expect_exit 0 "$KDET" run "$T/saxpy.ll" --unnamed natural -n 1 -- -arch=compute_80
  expect_exit 1 "$KDET" reduce "$D/numba_saxpy_dbg.ll" --cmd "$CC" --unnamed natural \
    -o "$T/dbg.ll" --llvm-reduce llvm-reduce-14
  expect_output "Input isn't interesting"
  expect_output 'llvm-reduce: 1 tested, 0 accepted, 1 invalid'
  expect_output 'only 0\.0 % smaller'
fi
echo "reduce_llvm_reduce: OK"
