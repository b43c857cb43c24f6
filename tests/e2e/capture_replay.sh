#!/usr/bin/env bash
# kdet run BUNDLE_DIR: a captured compile replays with the library it was
# captured with, its input and options, and says whether the captured output
# came back. Real libNVVM and NVRTC reproduce theirs; a fake whose output
# follows the load address does not (exit 1); bundles that cannot be replayed
# yet, a changed library and extra options are usage errors (exit 2).
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] || skip "fakes or capture clients not built"
IN=$EX/nvvm/llvm7/saxpy.ll
one_bundle() { compgen -G "$1/bundles/*" | head -1; }

if have_cuda; then
  NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so.* /usr/local/cuda/nvvm/lib64/libnvvm.so.* 2>/dev/null || true) | head -1)
  expect_exit 0 "$KDET" capture --out "$T/n" -- "$CL/capture_nvvm_client" "$NVVM" 1 1 "$IN" -- -arch=compute_90a
  expect_exit 0 "$KDET" run "$(one_bundle "$T/n")" -n 4 --json "$T/n.json"
  expect_output 'captured  ptx [0-9a-f]{32}: 4 of 4 runs gave it back'
  [[ $(json_eval "$T/n.json" 'd["replay"]["reproduced"], d["replay"]["outputs"][0]["runs"]') == "(True, 4)" ]] || fail "nvvm replay"
  SONAME=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)")
  expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/r" --json "$T/r.json" -- \
    "$CL/capture_nvrtc_client" "$SONAME" 1 sm_90 "$EX/cuda/warp_scan.cu"
  src=$(json_eval "$T/r.json" '[b["id"] for b in d["bundles"] if len(b["inputs"]) == 1][0]')
  hdr=$(json_eval "$T/r.json" '[b["id"] for b in d["bundles"] if len(b["inputs"]) == 2][0]')
  expect_exit 0 "$KDET" run "$T/r/bundles/$src" -n 2 --json "$T/rr.json"
  [[ $(json_eval "$T/rr.json" 'sorted((o["artifact"], o["runs"]) for o in d["replay"]["outputs"])') == "[('cubin', 2), ('ptx', 2)]" ]] || fail "nvrtc replay: PTX and cubin"
  expect_exit 2 "$KDET" run "$T/r/bundles/$hdr"
  expect_output 'cannot be replayed yet'
else
  echo "note: CUDA toolkit not found; real replays skipped"
fi

# The captured output (the fake's load address, ASLR on) does not come back with ASLR off.
expect_exit 0 "$KDET" capture --out "$T/la" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=loadaddr
expect_exit 1 "$KDET" run "$(one_bundle "$T/la")" -n 3 --process fresh --aslr off --json "$T/la.json"
expect_output 'NOT REPRODUCED'
[[ $(json_eval "$T/la.json" 'd["replay"]["reproduced"]') == False ]] || fail "loadaddr must not reproduce"

# The bundle brings its own options and library; one whose library changed is refused.
expect_exit 0 "$KDET" capture --out "$T/e" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=echo
expect_exit 0 "$KDET" run "$(one_bundle "$T/e")" -n 2
expect_exit 2 "$KDET" run "$(one_bundle "$T/e")" -n 2 -- -fake-mode=garbage
expect_output 'brings its own library'
cp "$FAKE" "$T/libcopy.so"
expect_exit 0 "$KDET" capture --out "$T/c" -- "$CL/capture_nvvm_client" "$T/libcopy.so" 1 1 "$IN" -- -fake-mode=echo
printf 'x' >>"$T/libcopy.so"
expect_exit 2 "$KDET" run "$(one_bundle "$T/c")" -n 2
expect_output 'has changed since'
# A lazily added module makes a multi-module bundle: not replayable yet, said so.
expect_exit 0 "$KDET" capture --out "$T/m" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" +"$IN" -- -fake-mode=echo
expect_exit 2 "$KDET" run "$(one_bundle "$T/m")"
expect_output 'cannot be replayed yet'
echo "capture_replay: OK"
