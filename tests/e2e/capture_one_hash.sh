#!/usr/bin/env bash
# tier: cuda
# One hash for one artifact: a real libNVVM compile captured by kdet capture is named by
# the same hash in capture's report (--json), the bundle's outputs, the output file's
# name, the replay (`kdet run BUNDLE`) and a plain `kdet run` of the same input, though
# the file keeps the trailing NUL libNVVM handed out. NVRTC's PTX and cubin replay under
# their bundle hashes too. A bundle written before (kdet.capture.bundle/1, PTX hashed with
# its NUL) still replays, naming both hashes.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
have_cuda || skip "CUDA toolkit not found under /usr/local/cuda"
[[ -x $CL/capture_nvvm_client && -x $CL/capture_nvrtc_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so.* /usr/local/cuda/nvvm/lib64/libnvvm.so.* 2>/dev/null || true) | head -1)
[[ -n $NVVM ]] || skip "libNVVM not installed"
IN=$EX/nvvm/llvm7/saxpy.ll

expect_exit 0 "$KDET" capture --out "$T/c" --json "$T/c.json" -- "$CL/capture_nvvm_client" "$NVVM" 1 2 "$IN" -- -arch=compute_90a
unpack_bundles "$T/c"
B=$T/c/bundles/$(sed -n '2s/ .*//p' "$T/c/bundles/index")
H=$(json_eval "$T/c.json" 'd["compiles"][0]["output"]')
[[ $H =~ ^[0-9a-f]{32}$ ]] || fail "capture's report names no output hash: $H"
expect_eq "second compile's hash in capture's report" "$(json_eval "$T/c.json" 'd["compiles"][1]["outputs"]["nvvm"]')" "$H"
expect_eq "capture's bundle summary" "$(json_eval "$T/c.json" '[o["hash"] for o in d["bundles"][0]["output_counts"]]')" "['$H']"
expect_eq "bundle.json outputs" "$(json_eval "$B/bundle.json" '[(o["hash"], o["file"]) for o in d["outputs"]]')" "[('$H', 'outputs/$H.ptx')]"
expect_eq "bundle schema" "$(json_eval "$B/bundle.json" 'd["schema"]')" "kdet.capture.bundle/3"
[[ -f $B/outputs/$H.ptx ]] || fail "no outputs/$H.ptx"
# The file holds the bytes as libNVVM handed them out: NUL kept, size as recorded.
[[ $(tail -c 1 "$B/outputs/$H.ptx" | od -An -tx1 | tr -d ' ') == 00 ]] || fail "the captured PTX lost its NUL"
expect_eq "recorded size" "$(json_eval "$B/bundle.json" 'd["outputs"][0]["size"]')" "$(stat -c %s "$B/outputs/$H.ptx")"
# The preload named the bytes by their raw hash; that name appears in no report.
RAW=$(awk '$2 == "output" && $3 == "nvvm" {print $4; exit}' "$T"/c/raw/records/*.log)
[[ $RAW =~ ^[0-9a-f]{32}$ && $RAW != "$H" ]] || fail "the record's raw hash '$RAW' should differ from the artifact hash $H"
# (The pack names each file by the hash of its bytes: storage, not a report.)
if grep -rq --exclude=index --exclude=bundles.pack "$RAW" "$T/c.json" "$T/c/capture.json" "$T/c/bundles"; then fail "the raw hash $RAW is reported"; fi

# Replay: the captured hash comes back under its one name, on one line.
expect_exit 0 "$KDET" run "$B" -n 2 --json "$T/rb.json"
expect_output "^captured  ptx $H: 2 of 2 runs gave it back \\(variant [0-9a-f]{12}\\)$"
if grep -q "bundle.json" "$T/out"; then cat "$T/out" >&2; fail "the replay names a second hash"; fi
expect_eq "replay JSON" "$(json_eval "$T/rb.json" '[(o["hash"], o["bundle_hash"], o["runs"]) for o in d["replay"]["outputs"]]')" "[('$H', '$H', 2)]"
expect_eq "replay's variant" "$(json_eval "$T/rb.json" '[a["hash"] for a in d["variants"][0]["artifacts"]]')" "['$H']"

# kdet run of the same input, options and library: the same hash, and its saved file is the text.
expect_exit 0 "$KDET" run "$IN" --backend nvvm --lib "$NVVM" -n 2 --out "$T/run" --json "$T/r.json" -- -arch=compute_90a
expect_eq "kdet run's artifact" "$(json_eval "$T/r.json" '[(a["name"], a["hash"]) for v in d["variants"] for a in v["artifacts"]]')" "[('ptx', '$H')]"
P=$(compgen -G "$T/run/variants/*/ptx" | head -1)
cmp -s "$P" <(head -c -1 "$B/outputs/$H.ptx") || fail "kdet run's PTX $P is not the captured text without its NUL"

# NVRTC: PTX (NUL-ended) and a cubin (bytes) each replay under the bundle's hash.
if ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* >/dev/null 2>&1; then
  SONAME=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)")
  expect_exit 0 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$KDET" capture --out "$T/n" --json "$T/n.json" -- \
    "$CL/capture_nvrtc_client" "$SONAME" 1 sm_90 "$EX/cuda/warp_scan.cu"
  unpack_bundles "$T/n"
  NB=$T/n/bundles/$(sed -n '2s/ .*//p' "$T/n/bundles/index")
  want=$(json_eval "$NB/bundle.json" 'sorted((o["kind"], o["hash"]) for o in d["outputs"])')
  [[ $want == *cubin*ptx* ]] || fail "NVRTC bundle lacks a PTX or a cubin: $want"
  expect_exit 0 "$KDET" run "$NB" -n 2 --json "$T/nr.json"
  expect_eq "NVRTC replay" "$(json_eval "$T/nr.json" 'sorted((o["artifact"], o["hash"]) for o in d["replay"]["outputs"] if o["runs"] == 2 and o["bundle_hash"] == o["hash"])')" "$want"
fi

# A bundle as kdet wrote it before: schema 1, PTX named by the hash of its bytes with the NUL.
O=$T/old/bundles/$(basename "$B")
mkdir -p "$T/old/bundles"
cp -r "$B" "$O"
mv "$O/outputs/$H.ptx" "$O/outputs/$RAW.ptx"
python3 - "$O/bundle.json" "$RAW" <<'EOF'
import json, sys
p, raw = sys.argv[1], sys.argv[2]
d = json.load(open(p))
d["schema"] = "kdet.capture.bundle/1"
d["outputs"][0]["hash"], d["outputs"][0]["file"] = raw, "outputs/%s.ptx" % raw
json.dump(d, open(p, "w"))
EOF
expect_exit 0 "$KDET" run "$O" -n 2 --json "$T/ro.json"
expect_output "^captured  ptx $H: 2 of 2 runs gave it back \\(variant [0-9a-f]{12}; bundle.json $RAW\\)$"
expect_eq "old bundle's replay JSON" "$(json_eval "$T/ro.json" '[(o["hash"], o["bundle_hash"], o["runs"]) for o in d["replay"]["outputs"]]')" "[('$H', '$RAW', 2)]"
# Its file changed since: a clear error, not a replay against another hash.
printf 'x' >>"$O/outputs/$RAW.ptx"
expect_exit 2 "$KDET" run "$O" -n 2
expect_output "changed since the capture"

echo "capture_one_hash: ok"
