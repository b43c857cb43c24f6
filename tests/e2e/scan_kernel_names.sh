#!/usr/bin/env bash
# tier: quick
# scan_kernel_names.sh: captured kernels are named by entry name, not by bundle hash, wherever
# they are named: capture's summary and manifest, bundle.json, a replay (kdet run BUNDLE), scan's
# terminal summary, JUnit and HTML, and kdet compare. A numba-like mangled name of 360
# characters is cut the same way everywhere (its first part, "...", 8 hex digits of its hash),
# and the full name is one flag (--full-names) or one click (HTML title, JUnit property
# "kernels", JSON) away. A bundle written before kdet recorded names (no "kernels" key) is
# named from its files.
# Env: KDET, KDET_FAKES_DIR, KDET_BINARY_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -x $CL/capture_nvvm_client ]] || skip "capture clients not built"
FAKE=$FAKES/libfakenvvm.so
LONG="_ZN8__main__10saxpy_kernB2v1B$(printf 'x%.0s' $(seq 1 300))E5ArrayIfLi1E1C7mutable7alignedE"
sed "s/@saxpy/@$LONG/g" "$EX/nvvm/llvm7/saxpy.ll" >"$T/long.ll"
{
  echo '#!/usr/bin/env bash'
  echo "'$CL/capture_nvvm_client' '$FAKE' 1 2 '$T/long.ll' -- -fake-mode=garbage"
  echo "'$CL/capture_nvvm_client' '$FAKE' 1 1 '$EX/nvvm/llvm7/saxpy.ll' -- -fake-mode=echo"
} >"$T/p.sh"
chmod +x "$T/p.sh"
expect_exit 1 "$KDET" capture --out "$T/cap" --json "$T/cap.json" -- "$T/p.sh"
cp "$T/out" "$T/capture.out"

# bundle.json holds the full names; which bundle is which (bundles are packed: unpacked here).
unpack_bundles "$T/cap"
read -r LB SB < <(python3 - "$T/cap" "$LONG" <<'PY'
import json, glob, sys
long_id = short_id = None
for f in glob.glob(sys.argv[1] + "/bundles/*/bundle.json"):
    b = json.load(open(f))
    if b["kernels"] == [sys.argv[2]]: long_id = b["id"]
    if b["kernels"] == ["saxpy"]: short_id = b["id"]
print(long_id, short_id)
PY
)
[[ $LB =~ ^[0-9a-f]{16}$ && $SB =~ ^[0-9a-f]{16}$ ]] || fail "bundle.json kernels: long '$LB', saxpy '$SB'"
# The one cut form: display_name's (its first 60 characters, "...", 8 hex digits).
CUT=$(grep -oE '_ZN8__main__10saxpy_kern[^ ]*\.\.\.[0-9a-f]{8}' "$T/capture.out" | head -1)
[[ -n $CUT ]] || { cat "$T/capture.out"; fail "capture's NONDETERMINISTIC line does not name the kernel, cut"; }
((${#CUT} <= 72)) || fail "cut name is ${#CUT} characters"
grep -qF "NONDETERMINISTIC kernel $CUT in bundle $LB" "$T/capture.out" || fail "capture's NONDETERMINISTIC line"
grep -qF "\"bundles/$LB\", # nvvm, 2 compiles, nondeterministic in the pipeline; kernel $CUT" "$T/cap/manifest.toml" ||
  fail "manifest.toml's note does not name the kernel"
grep -qF "\"bundles/$SB\", # nvvm, 1 compile; kernel saxpy" "$T/cap/manifest.toml" || fail "saxpy's note"

# A replay names its kernel; JSON in full.
expect_exit 0 "$KDET" run "$T/cap/bundles/$SB" -n 2 --json "$T/run.json" --color never
expect_output '^kernel    saxpy$'
[[ $(json_get "$T/run.json" '["replay"]["kernels"]') == "['saxpy']" ]] || fail "run JSON replay.kernels"
expect_exit 1 "$KDET" run "$T/cap/bundles/$LB" -n 2 --color never
grep -qF "kernel    $CUT" "$T/out" || { cat "$T/out"; fail "the replay of the long kernel is not named by its cut name"; }

# scan: terminal, JUnit, HTML, JSON.
set +e
"$KDET" scan "$T/cap/manifest.toml" --db "$T/a.db" -j 2 --color never --junit "$T/a.xml" \
  --report-html "$T/a.html" --json "$T/a.json" >"$T/scan.out" 2>&1
rc=$?
set -e
expect_eq "scan exit" "$rc" 1
grep -qF "NONDETERMINISTIC  $CUT (bundles/$LB) captured-libfakenvvm.so captured" "$T/scan.out" ||
  { cat "$T/scan.out"; fail "scan's NONDETERMINISTIC line does not name the kernel"; }
if grep -q "$LONG" "$T/scan.out"; then fail "the full 360-character name fills the summary"; fi
set +e
"$KDET" scan --report "$T/a.db" --full-names --color never >"$T/full.out" 2>&1
set -e
grep -qF "NONDETERMINISTIC  $LONG (bundles/$LB)" "$T/full.out" || fail "--full-names does not print the full name"
grep -qF "name=\"$CUT (bundles/$LB)\"" "$T/a.xml" || fail "JUnit testcase not named by the cut kernel name"
grep -qF "name=\"saxpy (bundles/$SB)\"" "$T/a.xml" || fail "JUnit testcase for saxpy"
grep -qF "<property name=\"kernels\" value=\"$LONG\"/>" "$T/a.xml" || fail "JUnit property kernels lacks the full name"
grep -qF "title=\"$LONG\"" "$T/a.html" || fail "HTML has no tooltip with the full name"
grep -qF ">$CUT (bundles/$LB) captured-libfakenvvm.so captured <span" "$T/a.html" ||
  fail "HTML card not titled by the cut name"
[[ $(json_eval "$T/a.json" "[j['kernels'] for j in d['jobs'] if j['bundle'] == '$LB'][0] == ['$LONG']") == True ]] ||
  fail "scan JSON kernels"

# compare: two scans of the capture, pairs named by kernel.
set +e
"$KDET" scan "$T/cap/manifest.toml" --db "$T/b.db" -j 2 --quiet >/dev/null 2>&1
"$KDET" compare "$T/a.db" "$T/b.db" --color never --json "$T/cmp.json" >"$T/cmp.out" 2>&1
"$KDET" compare "$T/a.db" "$T/b.db" --color never --full-names >"$T/cmpfull.out" 2>&1
set -e
grep -qF "$CUT (bundles/$LB - captured)" "$T/cmp.out" || { cat "$T/cmp.out"; fail "compare does not name the pair by kernel"; }
grep -qF "$LONG (bundles/$LB - captured)" "$T/cmpfull.out" || fail "compare --full-names"
[[ $(json_eval "$T/cmp.json" "[p['name'] for p in d['pairs'] if '$LB' in p['key']][0] == '$LONG (bundles/$LB - captured)'") == True ]] ||
  fail "compare JSON pair name"

# A bundle of an older capture (no "kernels" key) is named from its files.
python3 - "$T/cap/bundles/$SB/bundle.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1])); del b["kernels"]; json.dump(b, open(sys.argv[1], "w"))
PY
expect_exit 0 "$KDET" run "$T/cap/bundles/$SB" -n 2 --color never
expect_output '^kernel    saxpy$'
echo "scan_kernel_names: PASS"
