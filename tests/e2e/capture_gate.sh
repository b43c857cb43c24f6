#!/usr/bin/env bash
# tier: quick
# kdet capture's exit status is a gate a CI job can act on (README, "Exit status"): 3 when
# the pipeline failed (exit 7, killed by a signal) or captured nothing, even when a bundle
# varied; 1 when a bundle varied; 0 otherwise; --finish says 3 only when nothing was
# recorded. The summary says FAILED and JSON exit_code agrees; every --help footer agrees.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] ||
  skip "fakes or capture clients not built (ninja kdet_test_fakes kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll
# compile MODE [then]: the client compiles IN twice in one process, then runs `then`.
compile() { echo "\"\$1\" \"\$2\" 1 2 \"\$3\" -- -fake-mode=$1${2:+; $2}"; }

# A deterministic compile, then the pipeline fails with exit 7: a broken build is 3.
expect_exit 3 "$KDET" capture --json "$T/f.json" -- sh -c "$(compile echo 'exit 7')" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_output 'FAILED +the pipeline exited 7'
expect_eq "JSON exit_code" "$(json_get "$T/f.json" '["exit_code"]')" 3
expect_eq "JSON pipeline.exit_code" "$(json_get "$T/f.json" '["pipeline"]["exit_code"]')" 7
expect_eq "the compiles are still recorded" "$(json_eval "$T/f.json" 'len(d["compiles"])')" 2

# --junit (plain capture too, not only --builds): valid XML, a test case per bundle named by
# its kernel, an error case for the failed pipeline.
expect_exit 3 "$KDET" capture --out "$T/jo" --junit "$T/f.xml" -- sh -c "$(compile garbage 'exit 7')" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_eq "capture --junit: tests failures errors" \
  "$(python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.get("tests"), r.get("failures"), r.get("errors"))' "$T/f.xml")" "2 1 1"
grep -q 'name="saxpy' "$T/f.xml" || { cat "$T/f.xml"; fail "capture --junit does not name the kernel"; }
grep -q 'the pipeline exited 7' "$T/f.xml" || fail "capture --junit does not say the pipeline failed"

# A bundle varied AND the pipeline failed: 3 first, the varied bundle still named.
expect_exit 3 "$KDET" capture --json "$T/vf.json" -- sh -c "$(compile garbage 'exit 7')" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_output 'NONDETERMINISTIC +bundle'
expect_output 'FAILED +the pipeline exited 7'
expect_eq "varied and failed: bundle varies" "$(json_eval "$T/vf.json" 'd["bundles"][0]["nondeterministic"]')" True

# Killed by a signal after its compiles: 3.
expect_exit 3 "$KDET" capture -- sh -c "$(compile echo 'kill -KILL $$')" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_output 'FAILED +the pipeline was killed by signal 9'

# Nothing captured (a pipeline that exits 0 but compiles nothing): 3, with the warning.
expect_exit 3 "$KDET" capture --json "$T/n.json" -- true
expect_output 'no compile was captured'
expect_eq "nothing captured: JSON exit_code" "$(json_get "$T/n.json" '["exit_code"]')" 3
if grep -q FAILED "$T/out"; then fail "a pipeline that exited 0 is not FAILED"; fi

# The clean cases keep their codes: a varied bundle is 1, a deterministic build 0.
expect_exit 1 "$KDET" capture --json "$T/v.json" -- sh -c "$(compile garbage)" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_eq "varied: JSON exit_code" "$(json_get "$T/v.json" '["exit_code"]')" 1
expect_exit 0 "$KDET" capture --out "$T/ok" --json "$T/ok.json" -- sh -c "$(compile echo)" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_eq "clean: JSON exit_code" "$(json_get "$T/ok.json" '["exit_code"]')" 0

# --finish did not see how the pipeline ended: 0 or 1 from what was recorded, 3 when nothing was.
rm -rf "$T/ok/bundles" "$T/ok/manifest.toml"
expect_exit 0 "$KDET" capture --finish --out "$T/ok"
mkdir -p "$T/empty/raw/records" "$T/empty/raw/blobs"
expect_exit 3 "$KDET" capture --finish --out "$T/empty"
expect_output 'no compile was captured'

# --annotations: one GitHub workflow command per failure of the gate, on stderr.
expect_exit 3 "$KDET" capture --annotations --out "$T/ann" -- sh -c "$(compile garbage 'exit 7')" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
expect_output '^::error title=kdet capture::the pipeline exited 7$'
# Bundles are packed (DIR/bundles/ID is no file): the annotation points at the manifest listing it.
expect_output "^::error file=$T/ann/manifest.toml,title=kdet capture::bundle [0-9a-f]+ \(nvvm, 2 compiles\) gave 2 different outputs in one run$"
[[ -f $T/ann/manifest.toml ]] || fail "the annotated file does not exist"
expect_exit 0 "$KDET" capture --annotations -- sh -c "$(compile echo)" sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
if grep -q '^::error' "$T/out"; then fail "a clean capture annotated"; fi

# capture compare --annotations: the kernel that differs between two captures, on its bundle.
for c in g1 g2; do
  "$KDET" capture --out "$T/$c" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=garbage 2>/dev/null
done
expect_exit 1 "$KDET" capture compare "$T/g1" "$T/g2" --annotations --color never
expect_output "^::error file=$T/g1/manifest.toml,title=kdet capture builds::kernel .* nondeterministic"
# With a folder per bundle, its own bundle.json.
for c in f1 f2; do
  "$KDET" capture --bundle-layout folders --out "$T/$c" -- "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=garbage 2>/dev/null
done
expect_exit 1 "$KDET" capture compare "$T/f1" "$T/f2" --annotations --color never
expect_output "^::error file=$T/f1/bundles/[0-9a-f]+/bundle.json,title=kdet capture builds::kernel .* nondeterministic"
f=$(sed -nE 's/^::error file=([^,]+),.*/\1/p' "$T/out" | head -1)
[[ -f $f ]] || fail "the annotated file $f does not exist"

# Usage errors stay 2, before any pipeline runs.
expect_exit 2 "$KDET" capture --json - -- true

# Every footer says the same.
expect_exit 0 "$KDET" capture --help
expect_output '3 when the pipeline failed'
expect_exit 0 "$KDET" compare --help
expect_output '1 when B varies anywhere'
expect_exit 0 "$KDET" --help
expect_output 'pipeline failed'
echo "capture_gate: failed, killed and empty pipelines exit 3 (before a varied bundle's 1); clean 0, varied 1"
