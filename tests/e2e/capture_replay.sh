#!/usr/bin/env bash
# tier: slow
# kdet run BUNDLE_DIR: a captured compile replays with the library it was
# captured with, its input and options, and says whether the captured output
# came back. Real libNVVM and NVRTC reproduce theirs, also with several inputs
# (a module and libdevice added lazily; a source with a header; name
# expressions); a fake whose
# output follows the load address does not (exit 1); a bundle whose first
# input is lazy, a changed library and extra options are usage errors (exit 2).
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] || skip "fakes or capture clients not built"
IN=$EX/nvvm/llvm7/saxpy.ll
# A bundle path as capture prints them (DIR/bundles/ID, read from the pack).
one_bundle() { sed -n '2s/ .*//p' "$1/bundles/index" | sed "s|^|$1/bundles/|"; }

if have_cuda; then
  NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so.* /usr/local/cuda/nvvm/lib64/libnvvm.so.* 2>/dev/null || true) | head -1)
  expect_exit 0 "$KDET" capture --out "$T/n" -- "$CL/capture_nvvm_client" "$NVVM" 1 1 "$IN" -- -arch=compute_90a
  expect_exit 0 "$KDET" run "$(one_bundle "$T/n")" -n 4 --json "$T/n.json"
  expect_output 'captured  ptx [0-9a-f]{32}: 4 of 4 runs gave it back'
  [[ $(json_eval "$T/n.json" 'd["replay"]["reproduced"], d["replay"]["outputs"][0]["runs"]') == "(True, 4)" ]] || fail "nvvm replay"
  # The replay names the captured output by the bundle's hash, which is kdet run's (one
  # definition: PTX without libNVVM's NUL), and by the variant that gave it back.
  unpack_bundles "$T/n"
  bh=$(json_eval "$(one_bundle "$T/n")/bundle.json" 'd["outputs"][0]["hash"]')
  [[ $(json_eval "$T/n.json" 'd["replay"]["outputs"][0]["bundle_hash"], d["replay"]["outputs"][0]["hash"]') == "('$bh', '$bh')" ]] || fail "replay JSON does not name the bundle's hash $bh"
  v=$(json_eval "$T/n.json" 'd["variants"][0]["id"][:12]')
  expect_output "captured  ptx $bh: 4 of 4 runs gave it back \\(variant $v\\)$"
  SONAME=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)")
  expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/r" --json "$T/r.json" -- \
    "$CL/capture_nvrtc_client" "$SONAME" 1 sm_90 "$EX/cuda/warp_scan.cu"
  src=$(json_eval "$T/r.json" '[b["id"] for b in d["bundles"] if len(b["inputs"]) == 1][0]')
  hdr=$(json_eval "$T/r.json" '[b["id"] for b in d["bundles"] if len(b["inputs"]) == 2][0]')
  expect_exit 0 "$KDET" run "$T/r/bundles/$src" -n 2 --json "$T/rr.json"
  [[ $(json_eval "$T/rr.json" 'sorted((o["artifact"], o["runs"]) for o in d["replay"]["outputs"])') == "[('cubin', 2), ('ptx', 2)]" ]] || fail "nvrtc replay: PTX and cubin"
  # The source with its header (and include name) reproduces its PTX and cubin.
  expect_exit 0 "$KDET" run "$T/r/bundles/$hdr" -n 3 --json "$T/rh.json"
  [[ $(json_eval "$T/rh.json" 'sorted((o["artifact"], o["runs"]) for o in d["replay"]["outputs"])') == "[('cubin', 3), ('ptx', 3)]" ]] || fail "nvrtc header replay"
  # Name expressions (templates instantiated only through them) and a header, through ctypes.
  if command -v python3 >/dev/null; then
    expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/ne" -- \
      python3 "$KDET_SOURCE_DIR/tests/capture/nvrtc_names.py" "$SONAME" sm_90
    unpack_bundles "$T/ne"
    B=$(one_bundle "$T/ne")
    [[ $(json_eval "$B/bundle.json" '[i["tag"] for i in d["inputs"]]') == "['source', 'header', 'name_expr', 'name_expr']" ]] || fail "name expression bundle"
    expect_exit 0 "$KDET" run "$B" -n 3 --json "$T/ne.json"
    [[ $(json_eval "$T/ne.json" 'd["replay"]["reproduced"], [o["runs"] for o in d["replay"]["outputs"]]') == "(True, [3])" ]] || fail "name expression replay: $(json_eval "$T/ne.json" 'd["replay"]')"
  fi
  # A module calling libdevice's __nv_expf, libdevice added lazily after it (as numba does).
  LIBDEVICE=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
  if [[ -f $LIBDEVICE ]]; then
    expect_exit 0 "$KDET" capture --out "$T/ld" -- "$CL/capture_nvvm_client" "$NVVM" 1 1 \
      "$KDET_SOURCE_DIR/tests/data/expf_libdevice.ll" +"$LIBDEVICE" -- -arch=compute_90a
    unpack_bundles "$T/ld"
    B=$(one_bundle "$T/ld")
    [[ $(json_eval "$B/bundle.json" '[(i["tag"], i["lazy"]) for i in d["inputs"]], d["results"]') == "([('module', False), ('module', True)], {'0': 1})" ]] || fail "libdevice bundle: $(cat "$B/bundle.json")"
    grep -q 'ex2' "$B"/outputs/*.ptx || fail "libdevice's expf is not in the captured PTX"
    expect_exit 0 "$KDET" run "$B" -n 3 --json "$T/ld.json"
    [[ $(json_eval "$T/ld.json" 'd["replay"]["reproduced"], d["replay"]["outputs"][0]["runs"]') == "(True, 3)" ]] || fail "libdevice replay"
    # Without libdevice __nv_expf stays an external call: the lazy module was really given.
    expect_exit 0 "$KDET" capture --out "$T/nold" -- "$CL/capture_nvvm_client" "$NVVM" 1 1 \
      "$KDET_SOURCE_DIR/tests/data/expf_libdevice.ll" -- -arch=compute_90a
    unpack_bundles "$T/nold"
    if grep -q 'ex2' "$(one_bundle "$T/nold")"/outputs/*.ptx; then fail "expf inlined without libdevice"; fi
  else
    echo "note: $LIBDEVICE not found; libdevice replay skipped"
  fi
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
# Several modules replay in order, the lazy one lazily: the fake's echo gives them back.
expect_exit 0 "$KDET" capture --out "$T/m" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" +"$EX/nvvm/llvm7/block_reduce.ll" -- -fake-mode=echo
expect_exit 0 "$KDET" run "$(one_bundle "$T/m")" -n 2 --json "$T/m.json"
[[ $(json_eval "$T/m.json" 'd["replay"]["reproduced"]') == True ]] || fail "multi-module replay"
# A bundle whose first module was added lazily cannot be kdet run's input: said so.
expect_exit 0 "$KDET" capture --out "$T/z" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 +"$IN" -- -fake-mode=echo
expect_exit 2 "$KDET" run "$(one_bundle "$T/z")"
expect_output 'does not start with a module added non-lazily'
echo "capture_replay: OK"
