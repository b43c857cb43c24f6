#!/usr/bin/env bash
# tier: slow
# kdet reduce on CUDA C++ with cvise as the engine: a .cu-like file whose planted construct
# makes fake_cc vary. The generated interestingness script calls kdet back, so the flaky-aware
# oracle decides; the result is smaller, keeps the construct and still varies. --timeout-total
# bounds the run (and checks that stopping cvise leaves no process behind); --cvise none takes
# the line pass. First (cvise or not): a capture bundle as INPUT.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc

# A bundle folder of kdet capture brings its input, library and options (fake libNVVM in
# garbage mode varies whatever the input); the README's kdet run command names them.
CL=$KDET_BINARY_DIR/tests/capture
if [[ -f $FAKES/libfakenvvm.so && -x $CL/capture_nvvm_client ]]; then
  IN=$KDET_SOURCE_DIR/examples/nvvm/llvm7/saxpy.ll
  expect_exit 1 "$KDET" capture --out "$T/cap" -- "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" \
    1 2 "$IN" -- -fake-mode=garbage
  # A bundle as the summary prints it, DIR/bundles/ID (bundles are packed: its id from the index).
  B=$T/cap/bundles/$(sed -n '2s/ .*//p' "$T/cap/bundles/index")
  [[ $B =~ /[0-9a-f]{16}$ ]] || fail "no bundle in $T/cap/bundles/index"
  expect_exit 0 "$KDET" reduce "$B" -n 8 --final-runs 8 -o "$T/bundle.ll"
  (($(stat -c %s "$T/bundle.ll") < $(stat -c %s "$IN"))) || fail "the bundle's input did not shrink"
  grep -q -- "--lib $FAKES/libfakenvvm.so .*-- -fake-mode=garbage" "$T/bundle.ll.repro/README.md" ||
    fail "the README's command lacks the bundle's library and options"
fi

command -v cvise >/dev/null || skip "cvise is not installed (Debian package cvise)"
CC="$FAKES/fake_cc planted {input} {output}"

# A header comment and helpers: cvise's first passes (comments, blank lines) already halve it.
{
  echo '/*'
  for i in $(seq 1 24); do echo " * Copyright and licence text of a generated kernel, line $i."; done
  echo ' */'
  echo '#include "cuda_runtime.h"'
  echo '#define N 256'
  for i in 0 1 2 3 4 5; do
    printf '__device__ float helper_%s(const float* a, int i) {\n' $i
    printf '  float s = 0.0f;\n  for (int k = 0; k < %s; ++k)\n' $((i + 2))
    printf '    s += a[(i + k) %% N] * %s.5f;\n  return s;\n}\n' $i
  done
  echo '__global__ void kernel(float* out, const float* in) {'
  echo '  int i = blockIdx.x * blockDim.x + threadIdx.x;'
  echo '  int kdet_planted = i;'
  echo '  out[i] = helper_3(in, i) + kdet_planted;'
  echo '}'
} >"$T/k.cu"
orig=$(stat -c %s "$T/k.cu")

# The cap keeps the test fast (cvise takes minutes to finish a file under load); sanitized
# kdet processes start and run slower, so they get a longer one.
cap=6
[[ -z ${ASAN_OPTIONS:-}${TSAN_OPTIONS:-} ]] || cap=12
cd "$T"
expect_exit 0 "$KDET" reduce k.cu --cmd "$CC" --unnamed natural -n 8 --final-runs 8 -j 2 \
  --timeout-total $cap -o small.cu
expect_output 'reduced +[0-9]+ -> [0-9]+ bytes .*, cvise'
small=$(stat -c %s "$T/small.cu")
((small * 2 < orig)) || fail "cvise reduced $orig bytes to $small only"
grep -q kdet_planted "$T/small.cu" || fail "the planted construct is gone"
expect_exit 1 "$KDET" run "$T/small.cu" --cmd "$CC" --unnamed natural -n 8
cmp -s "$T/small.cu" "$T/small.cu.repro/small.cu" || fail "repro input differs from SMALL"
# Stopping cvise at the cap left nothing running: no cvise, no oracle kdet.
pgrep -f "$T/" >/dev/null && fail "processes left behind: $(pgrep -af "$T/")"

# Without cvise (--cvise none): a warning-free line pass; a missing cvise is named.
expect_exit 0 "$KDET" reduce k.cu --cmd "$CC" --unnamed natural -n 8 --final-runs 8 \
  --cvise "$T/no-such-cvise" -o lines.cu
expect_output 'cvise not found at .*no-such-cvise.*line pass'
grep -q kdet_planted "$T/lines.cu" || fail "line pass: the planted construct is gone"
(($(stat -c %s "$T/lines.cu") < orig)) || fail "the line pass did not reduce"
echo "$NAME: ok ($orig -> $small bytes with cvise)"
