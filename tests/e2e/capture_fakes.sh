#!/usr/bin/env bash
# tier: quick
# kdet capture with the fake libNVVM: a pipeline that compiles one module twice
# and gets two outputs is caught in the run itself (exit 1, the bundle and both
# hashes named); deterministic pipelines exit 0; child processes are followed;
# programs linked at build time (also through an RTLD_LOCAL module) are
# seen; usage errors exit 2.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client && -x $CL/capture_linked_client ]] ||
  skip "fakes or capture clients not built (ninja kdet_test_fakes kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# Same module, same options, compiled twice in one process: garbage output differs.
expect_exit 1 "$KDET" capture --json "$T/g.json" -- "$CL/capture_nvvm_client" "$FAKE" 1 2 "$IN" -- -fake-mode=garbage
id=$(json_eval "$T/g.json" 'd["bundles"][0]["id"]')
[[ $(json_eval "$T/g.json" 'len(d["bundles"])') == 1 ]] || fail "one bundle expected"
[[ $(json_eval "$T/g.json" 'd["bundles"][0]["nondeterministic"]') == True ]] || fail "bundle must vary"
[[ $(json_eval "$T/g.json" 'len(set(d["bundles"][0]["outputs"]))') == 2 ]] || fail "two output hashes"
expect_output "NONDETERMINISTIC +bundle $id \(nvvm, 2 compiles"
for h in $(json_eval "$T/g.json" '" ".join(d["bundles"][0]["outputs"])'); do expect_output "nvvm $h x1"; done
[[ $(json_eval "$T/g.json" 'd["schema"]') == kdet.capture/3 ]] || fail schema
[[ $(json_eval "$T/g.json" '{c["bundle"] for c in d["compiles"]} == {d["bundles"][0]["id"]}') == True ]] || fail "compiles name their bundle"

# Deterministic (echo): 4 threads x 3 compiles, one bundle, one output, exit 0.
expect_exit 0 "$KDET" capture --out "$T/echo" --json "$T/e.json" -- "$CL/capture_nvvm_client" "$FAKE" 4 3 "$IN" +"$EX/nvvm/llvm7/block_reduce.ll" -- -fake-mode=echo
[[ $(json_eval "$T/e.json" 'len(d["compiles"]), len(d["bundles"]), d["bundles"][0]["compiles"], len(d["bundles"][0]["outputs"])') == "(12, 1, 12, 1)" ]] || fail "echo: 12 compiles in one bundle with one output"
[[ $(json_eval "$T/e.json" 'len({c["thread"] for c in d["compiles"]})') == 4 ]] || fail "4 threads"
[[ $(json_eval "$T/e.json" '[(i["tag"], i["lazy"]) for i in d["bundles"][0]["inputs"]]') == "[('module', False), ('module', True)]" ]] || fail "modules in order with the lazy flag"
expect_output 'compiles   nvvm 12, nvrtc 0'
expect_output 'never seen nvrtc, nvjitlink'
# The bundle folder is self-contained: inputs as given, the output as produced.
unpack_bundles "$T/echo"
B=$T/echo/bundles/$(json_eval "$T/e.json" 'd["bundles"][0]["id"]')
cmp "$B/inputs/00-module.ll" "$IN" || fail "bundle input 0 differs from the module"
cmp "$B/inputs/01-module.ll" "$EX/nvvm/llvm7/block_reduce.ll" || fail "bundle input 1 differs"
out=$(json_eval "$B/bundle.json" 'd["outputs"][0]["file"]')
head -1 "$B/$out" | grep -q '^// fake PTX' || fail "bundle output is not the fake's PTX"
[[ $(json_eval "$B/bundle.json" 'd["library"]["path"]') == $(realpath "$FAKE") ]] || fail "library path"
[[ $(json_eval "$B/bundle.json" 'd["options"]') == "['-fake-mode=echo']" ]] || fail "options"
# A second capture into the same folder is refused: a recorded capture is never overwritten.
expect_exit 2 "$KDET" capture --out "$T/echo" -- true
expect_output 'already holds a capture'

# Different options are different bundles, never a variation.
expect_exit 0 "$KDET" capture --json "$T/o.json" -- sh -c '"$1" "$2" 1 1 "$3" -- -fake-mode=echo && "$1" "$2" 1 1 "$3" -- -fake-mode=echo -opt=3' sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
[[ $(json_eval "$T/o.json" 'len(d["bundles"])') == 2 ]] || fail "two option sets, two bundles"

# Child processes are followed: the load-address fake gives one output per process.
expect_exit 1 "$KDET" capture --out "$T/p" --json "$T/p.json" -- sh -c 'for i in 1 2 3; do "$1" "$2" 1 1 "$3" -- -fake-mode=loadaddr || exit 1; done' sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
[[ $(json_eval "$T/p.json" 'len({c["pid"] for c in d["compiles"]})') == 3 ]] || fail "three processes"
[[ $(json_eval "$T/p.json" 'd["bundles"][0]["nondeterministic"]') == True ]] || fail "loadaddr varies across processes"
[[ $(json_eval "$T/p.json" 'len(d["bundles"])') == 1 ]] || fail "one bundle across processes"
# The library was hashed once; the later processes read the hash kept in raw/libs.
[[ $(ls "$T/p/raw/libs" | wc -l) == 1 ]] || fail "one cached library hash expected"
[[ $(cat "$T/p/raw/libs/"*) == $(json_eval "$T/p.json" 'd["bundles"][0]["library"]["hash"]') ]] || fail "cached hash"

# Linked at build time (DT_NEEDED on the fake): the library's own exports are interposed.
expect_exit 1 "$KDET" capture --json "$T/l.json" -- "$CL/capture_linked_client" garbage 2
expect_exit 0 "$KDET" capture --json "$T/l.json" -- "$CL/capture_linked_client" echo 3
[[ $(json_eval "$T/l.json" 'len(d["compiles"])') == 3 ]] || fail "linked: 3 compiles"

# Linked into a module loaded with dlopen(RTLD_LOCAL) (a Python extension with its own bundled
# compiler): RTLD_NEXT cannot see that compiler; the call must still reach it, and be recorded.
MOD=$CL/libcapture_linked_module.so
[[ -f $MOD && -x $CL/capture_module_loader ]] || fail "capture_linked_module not built"
expect_exit 0 "$KDET" capture --json "$T/m.json" -- "$CL/capture_module_loader" "$MOD" echo 2
expect_output 'the pipeline exited 0'
[[ $(json_eval "$T/m.json" 'len(d["compiles"]), d["bundles"][0]["library"]["path"]') == "(2, '$(realpath "$FAKE")')" ]] || fail "module-linked compiles"
expect_exit 1 "$KDET" capture -- "$CL/capture_module_loader" "$MOD" garbage 2

# A failing compile is recorded with its return code; fails every time: no variation, but
# the pipeline exited 1, so the capture is 3 (a failed build).
expect_exit 3 "$KDET" capture --json "$T/f.json" -- "$CL/capture_nvvm_client" "$FAKE" 1 2 "$IN" -- -fake-mode=fail
[[ $(json_eval "$T/f.json" 'd["bundles"][0]["results"]') == "{'9': 2}" ]] || fail "results of failed compiles"
[[ $(json_eval "$T/f.json" 'd["pipeline"]["exit_code"]') == 1 ]] || fail "pipeline exit code kept"
expect_output 'the pipeline exited 1'

# Nothing captured is said, never silent, and is a failed gate (3).
expect_exit 3 "$KDET" capture -- true
expect_output 'warning +no compile was captured'

# Usage errors and a pipeline that cannot start: exit 2.
expect_exit 2 "$KDET" capture
expect_exit 2 "$KDET" capture -- "$T/no-such-program"
expect_output 'cannot run'
touch "$T/file"
expect_exit 2 "$KDET" capture --out "$T/file" -- true
# --json - would mix the document into the pipeline's own stdout: exit 2, nothing run.
expect_exit 2 "$KDET" capture --json - -- touch "$T/ran"
expect_output 'pipeline writes to stdout too'
[[ ! -e $T/ran ]] || fail "the pipeline ran although --json - was refused"
# A folder holding a manifest.toml (a user's scan manifest) is refused, not overwritten.
mkdir "$T/proj"
echo 'inputs = ["k.ll"]' >"$T/proj/manifest.toml"
expect_exit 2 "$KDET" capture --out "$T/proj" -- true
expect_output 'already holds a capture \(manifest.toml exists\)'
[[ $(cat "$T/proj/manifest.toml") == 'inputs = ["k.ll"]' && ! -e $T/proj/raw ]] || fail "--out over a manifest"
echo "capture_fakes: OK"
