#!/usr/bin/env bash
# tier: cuda
# kdet capture of an LTO pipeline with the real compilers: NVRTC and nvJitLink
# loaded by soname (dlopen + dlsym) from 4 threads, NVRTC compiling to LTO-IR
# (-dlto, one source with a header) and nvJitLink linking three inputs given
# with AddData and one with AddFile; and nvJitLink linked at build time through
# its header (the versioned entry points). Every compile is seen, per thread,
# and the link bundle (several inputs) replays to its captured cubin.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
have_cuda || skip "CUDA toolkit not found under /usr/local/cuda"
[[ -x $CL/capture_jitlink_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
RTC=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* 2>/dev/null | head -1)")
JL=$(basename "$(ls /usr/local/cuda/lib64/libnvJitLink.so.[0-9]* 2>/dev/null | head -1)")
[[ -n $RTC && -n $JL ]] || skip "NVRTC or nvJitLink not installed"
mkdir "$T/work"

# 1 + 4 x 3 NVRTC compiles, 4 links: 5 bundles (the extra source, a, b with its header, c; the link).
expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/c" --json "$T/c.json" -- \
  "$CL/capture_jitlink_client" "$RTC" "$JL" 4 sm_90 "$T/work"
expect_output 'compiles   nvvm 0, nvrtc 13, nvjitlink 4'
expect_output 'bundles    5 \(0 nondeterministic\)'
# What the bundles compiled more than once would have shown, in the words every command uses.
expect_output 'no variance seen in 16 compiles: a rate above 17% would have shown \(95% confidence\) \(4 bundles compiled more than once\)'
if grep -q "nvjitlink (not captured" "$T/out"; then fail "nvjitlink still listed as not captured"; fi
[[ $(json_eval "$T/c.json" 'len({c["thread"] for c in d["compiles"] if c["kind"] == "nvjitlink"})') == 4 ]] ||
  fail "the 4 links were not seen on 4 threads"
[[ $(json_eval "$T/c.json" 'd["kinds"]["nvjitlink"]["compiles"], d["kinds"]["nvjitlink"]["captured"]') == "(4, True)" ]] || fail "kinds"
jl=$(json_eval "$T/c.json" '[b["id"] for b in d["bundles"] if b["kind"] == "nvjitlink"][0]')
unpack_bundles "$T/c"
B=$T/c/bundles/$jl
[[ $(json_eval "$B/bundle.json" '[(i["tag"], i["type"], i["name"]) for i in d["inputs"]]') == \
  "[('jit_input', 3, 'a.ltoir'), ('jit_input', 3, 'b.ltoir'), ('jit_input', 3, 'c.ltoir'), ('jit_input', 3, '$T/work/extra.ltoir')]" ]] ||
  fail "nvjitlink inputs: $(json_eval "$B/bundle.json" 'd["inputs"]')"
[[ $(json_eval "$B/bundle.json" 'd["options"], d["compiles"], d["nondeterministic"], [o["kind"] for o in d["outputs"]]') == \
  "(['-arch=sm_90', '-lto'], 4, False, ['cubin'])" ]] || fail "nvjitlink bundle: $(cat "$B/bundle.json")"
cmp "$B/inputs/03-jit_input.ltoir" "$T/work/extra.ltoir" || fail "AddFile's bytes differ from the file"
[[ $(json_eval "$B/bundle.json" 'd["library"]["path"]') == $(realpath "/usr/local/cuda/lib64/$JL") ]] ||
  fail "library path is not the resolved soname"
cubin=$(json_eval "$B/bundle.json" 'd["outputs"][0]["file"]')
[[ $(head -c 4 "$B/$cubin" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] || fail "the linked cubin is not ELF"

# The link replays with its four inputs, of their captured types, and gives the cubin back.
expect_exit 0 "$KDET" run "$B" -n 3 --json "$T/run.json"
expect_output 'captured  cubin [0-9a-f]{32}: 3 of 3 runs gave it back'
[[ $(json_eval "$T/run.json" 'd["replay"]["reproduced"], [(o["artifact"], o["runs"]) for o in d["replay"]["outputs"]]') == "(True, [('cubin', 3)])" ]] ||
  fail "nvjitlink replay"

# Linked at build time: the header calls __nvJitLinkCreate_13_0 and friends.
if [[ -x $CL/capture_linked_jitlink ]]; then
  expect_exit 0 "$KDET" capture --out "$T/l" --json "$T/l.json" -- "$CL/capture_linked_jitlink" "$T/work/extra.ltoir" sm_90
  [[ $(json_eval "$T/l.json" '[(b["kind"], b["inputs"][0]["name"], len(b["outputs"])) for b in d["bundles"]]') == \
    "[('nvjitlink', 'linked.ltoir', 1)]" ]] || fail "linked nvJitLink: $(json_eval "$T/l.json" 'd["bundles"]')"
else
  echo "note: capture_linked_jitlink not built (no libnvJitLink at configure time)"
fi
echo "capture_jitlink: OK"
