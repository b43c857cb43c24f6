#!/usr/bin/env bash
# tier: quick
# The driver's load seam, with a fake libcuda (tests/capture/fake_cuda.c, no GPU): every
# module the pipeline hands to the driver is recorded, by dlsym and through
# cuGetProcAddress_v2; one a captured compile made is joined to it (also inside a fatbin);
# one no captured compile made names its kernel as made by a compiler kdet did not see, in
# the summary and JSON; a fatbin the runtime registers from a program's static data
# (__cudaRegisterFatBinary) is shipped in that program, compiled ahead of time, never "made by
# a compiler kdet did not see"; across builds, a loaded module that alone varies is the first
# varying stage, loaded by the driver. Without libcuda nothing changes.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
CUDA=$CL/libcapture_fake_cuda.so
[[ -f $FAKE && -f $CUDA && -x $CL/capture_driver_client ]] ||
  skip "fakes or capture clients not built (ninja kdet_test_fakes kdet_capture_clients)"

# 1. One capture: (a) the libNVVM PTX joined, (b) unseen PTX named, (c) through
#    cuGetProcAddress_v2, (d) a fatbin that holds (a)'s PTX, (e) a fatbin the program ships.
expect_exit 0 "$KDET" capture --out "$T/one" --json "$T/one.json" -- "$CL/capture_driver_client" "$CUDA" "$FAKE"
expect_output 'loaded +5 modules through the CUDA driver: 2 made by a compile kdet saw, 1 shipped in the program or its libraries \(compiled ahead of time\), 2 not'
! grep -q 'UNSEEN.*k_shipped' "$T/out" || fail "a shipped fatbin was called unseen" 
expect_output 'UNSEEN +kernel k_unseen \(ptx [0-9a-f]{16}, cuModuleLoadDataEx\): made by a compiler kdet did not see'
expect_output 'UNSEEN +kernel k_proc \(ptx [0-9a-f]{16}, cuLibraryLoadData\): made by a compiler kdet did not see'
bundle=$(json_eval "$T/one.json" 'd["bundles"][0]["id"]')
expect_eq seen "$(json_eval "$T/one.json" '[(l["kernels"], l["form"], sorted(l["via"]), l["made_by"], l["holds"]) for l in d["loads"]]')" \
  "[(['k_seen'], 'ptx', ['cuModuleLoadData'], ['$bundle'], False), (['k_unseen'], 'ptx', ['cuModuleLoadDataEx'], [], False), (['k_proc'], 'ptx', ['cuLibraryLoadData'], [], False), (['k_seen'], 'fatbin', ['cuModuleLoadFatBinary'], ['$bundle'], True), (['k_shipped'], 'fatbin', ['__cudaRegisterFatBinary'], [], False)]"
expect_eq shipped "$(json_eval "$T/one.json" '[(l["shipped_in"], l["words"]) for l in d["loads"] if l["shipped_in"]]')" \
  "[(['$CL/capture_driver_client'], 'shipped in capture_driver_client (compiled ahead of time)')]"
expect_eq words "$(json_eval "$T/one.json" '[l["words"] for l in d["loads"] if not l["seen"]]')" \
  "['made by a compiler kdet did not see', 'made by a compiler kdet did not see', 'shipped in capture_driver_client (compiled ahead of time)']"
# The images are kept, byte for byte as the driver got them.
for f in $(json_eval "$T/one.json" '" ".join(l["image"] + "." + l["form"] for l in d["loads"])'); do
  [[ -s $T/one/loads/$f ]] || fail "loaded image $f not kept"
done
grep -q 'k_unseen' "$T/one/loads/"*.ptx || fail "the unseen PTX was not kept"
# The compile is still the only compile (loads are not compiles).
expect_eq compiles "$(json_eval "$T/one.json" 'len(d["compiles"])')" 1

# 2. No libcuda: nothing to interpose and nothing changes (no compile either: exit 3, as
#    before); the preload's own exports are not handed out as a driver that is not there.
expect_exit 3 "$KDET" capture --json "$T/none.json" -- sh -c 'python3 -c "import ctypes; print(\"driver:\", hasattr(ctypes.CDLL(None), \"cuModuleLoadData\"))"; exit 0'
expect_output 'driver: False'
! grep -Eq 'loaded +[0-9]+ module' "$T/out" || fail "a capture without a driver reports loads"
expect_eq "no loads" "$(json_eval "$T/none.json" 'd["loads"]')" "[]"

# 3. Builds where only the loaded module varies (it carries the pid): the first varying stage
#    is the load, loaded by the driver; the compile and its load the same in every build.
#    The program runs from a folder whose name holds ", ": a path is named whole, never split.
W="$T/bin, x"
mkdir -p "$W" && cp "$CL/capture_driver_client" "$W/"
expect_exit 1 env DRIVER_VARY=1 "$KDET" capture --builds 3 --out "$T/b" --json "$T/b.json" -- "$W/capture_driver_client" "$CUDA" "$FAKE"
expect_output 'NONDETERMINISTIC k_unseen'
expect_output 'first varies loaded by the driver \(stage 1, cuModuleLoadDataEx\): the module handed to the driver differs between builds, made by a compiler kdet did not see'
expect_eq status "$(json_eval "$T/b.json" 'sorted((k["name"], k["status"]) for k in d["kernels"])')" \
  "[('k_proc', 'same'), ('k_seen', 'same'), ('k_shipped', 'same'), ('k_unseen', 'nondeterministic')]"
expect_eq "shipped stage" "$(json_eval "$T/b.json" '[[(b["shipped_in"], b["made_by"]) for b in k["stages"][0]["builds"]][0] for k in d["kernels"] if k["name"] == "k_shipped"][0]')" \
  "('$W/capture_driver_client', None)"
expect_eq stages "$(json_eval "$T/b.json" '[[s["seam"] for s in k["stages"]] for k in d["kernels"] if k["name"] == "k_seen"][0]')" \
  "['interposed', 'loaded', 'loaded']"
expect_eq "no input-differs" "$(json_eval "$T/b.json" 'd["summary"]["by_status"]["input-differs"]')" 0
# The shipped fatbin is told apart, not counted as a kernel of the pipeline's (PyTorch's
# libraries register hundreds: on the GPU host they were 445 of 448 "kernels").
expect_output 'result +1 of 3 kernels differs across 3 builds'
expect_output 'shipped +1 fatbin shipped in capture_driver_client \(compiled ahead of time\), loaded alike in every build: not counted above'
expect_output 'build 1 .* 3 kernels'
expect_eq "summary shipped" "$(json_eval "$T/b.json" '(d["summary"]["kernels"], d["summary"]["shipped"])')" "(4, 1)"
expect_output 'next: kdet diff .*build-[0-9]/loads/[0-9a-f]+\.ptx .*build-[0-9]/loads/[0-9a-f]+\.ptx'
