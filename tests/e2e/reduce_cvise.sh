#!/usr/bin/env bash
# kdet reduce on CUDA C++ with cvise as the engine: a .cu-like file whose planted construct
# makes fake_cc vary. The generated interestingness script calls kdet back, so the flaky-aware
# oracle decides; the result is smaller, keeps the construct and still varies. --timeout-total
# bounds the run (and checks that stopping cvise leaves no process behind); --cvise none takes
# the line pass.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
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

# The cap keeps the test fast (cvise takes minutes to finish a file under load).
cd "$T"
expect_exit 0 "$KDET" reduce k.cu --cmd "$CC" --unnamed natural -n 8 --final-runs 8 -j 2 \
  --timeout-total 6 -o small.cu
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
