#!/usr/bin/env bash
# tier: cuda
# kdet capture --out DIR writes DIR/manifest.toml, and kdet scan runs it as written:
# one job per replayable bundle, each with its captured library and options. Real
# libNVVM and NVRTC compiles come out deterministic, the garbage fake's bundle
# varies; bundles that cannot be replayed yet are comments with the reason, and
# naming one in a manifest is exit 2 at its line. kdet explain takes a bundle too.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] || skip "fakes or capture clients not built"
IN=$EX/nvvm/llvm7/saxpy.ll

# The pipeline: fakes always; real libNVVM (twice the same compile) and NVRTC (a source
# alone and one with a header) when the toolkit is here.
{
  echo '#!/usr/bin/env bash'
  echo 'set -e'
  echo "'$CL/capture_nvvm_client' '$FAKE' 1 2 '$IN' -- -fake-mode=garbage"
  echo "'$CL/capture_nvvm_client' '$FAKE' 1 1 '$IN' +'$IN' -- -fake-mode=echo"
  echo "'$CL/capture_nvvm_client' '$FAKE' 1 1 '$IN' -- -fake-mode=echo"
  if have_cuda; then
    NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so.* /usr/local/cuda/nvvm/lib64/libnvvm.so.* 2>/dev/null || true) | head -1)
    SONAME=$(basename "$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)")
    echo "'$CL/capture_nvvm_client' '$NVVM' 1 2 '$IN' -- -arch=compute_90a"
    echo "LD_LIBRARY_PATH=/usr/local/cuda/lib64 '$CL/capture_nvrtc_client' '$SONAME' 1 sm_90 '$EX/cuda/warp_scan.cu'"
  else
    echo "note: CUDA toolkit not found; real compiles skipped" >&2
  fi
} >"$T/pipeline.sh"
chmod +x "$T/pipeline.sh"

expect_exit 1 "$KDET" capture --out "$T/cap" --json "$T/cap.json" -- "$T/pipeline.sh"
expect_output "replay     kdet scan $T/cap/manifest.toml"
M=$T/cap/manifest.toml
[[ -f $M ]] || fail "no manifest.toml"
# Every bundle is listed, the multi-module one too (its jobs carry every module).
ids() { json_eval "$T/cap.json" "' '.join(b['id'] for b in d['bundles'] if $1)"; }
for id in $(ids 'True'); do
  grep -q "^  \"bundles/$id\", # " "$M" || fail "replayable bundle $id not listed"
done
varied=$(ids 'b["nondeterministic"]')
[[ $varied =~ ^[0-9a-f]{16}$ ]] || fail "one bundle should have varied, got '$varied'"
grep -q "^  \"bundles/$varied\", # nvvm, 2 compiles, nondeterministic in the pipeline" "$M" || fail "varied bundle not marked"

# The manifest runs as written: every job finishes; real compiles are deterministic, the
# garbage fake's bundle varies (exit 1).
listed=$(grep -c '^  "bundles/' "$M")
expect_exit 1 "$KDET" scan "$M" --db "$T/scan.db" --json "$T/scan.json" -j 2
expect_output "kdet scan: $listed jobs \\($listed bundles\\)"
[[ $(json_eval "$T/scan.json" 'len(d["jobs"])') == "$listed" ]] || fail "jobs: want $listed"
[[ $(json_eval "$T/scan.json" 'all(j["done"] for j in d["jobs"])') == True ]] || fail "every job must finish"
[[ $(json_eval "$T/scan.json" 'all(j["input"] == "bundles/" + j["bundle"] and j["option_set"] == "captured" for j in d["jobs"])') == True ]] || fail "jobs must name their bundle"
for id in $(ids 'True'); do
  want=deterministic
  [[ $id == "$varied" ]] && want=nondeterministic
  got=$(json_eval "$T/scan.json" "[j['status'] for j in d['jobs'] if j['bundle'] == '$id'][0]")
  expect_eq "bundle $id" "$got" "$want"
done
if have_cuda; then
  real=$(json_eval "$T/scan.json" '" ".join(sorted(j["compiler"] for j in d["jobs"] if j["status"] == "deterministic" and "fake" not in j["compiler"]))')
  want=$(json_eval "$T/cap.json" '" ".join(sorted("captured-" + b["library"]["path"].split("/")[-1] for b in d["bundles"] if "fake" not in b["library"]["path"]))')
  expect_eq "real libNVVM and NVRTC bundles (the header one too): deterministic, each with its captured library" "$real" "$want"
  [[ $want == *libnvrtc*libnvrtc*libnvvm* ]] || fail "expected two NVRTC bundles (one with a header) and one libNVVM bundle: $want"
fi
# Named by the kernel the bundle compiles (saxpy), then its folder.
expect_output "NONDETERMINISTIC +saxpy \\(bundles/$varied\\) captured-libfakenvvm.so captured"

# The multi-module job compiled both modules: the fake echoes every module it was given, so its
# output is longer than the single-module echo bundle's (same first module, same options).
multi=$(ids 'len(b["inputs"]) > 1' | cut -d' ' -f1)
one=$(ids 'len(b["inputs"]) == 1 and "fake" in b["library"]["path"] and not b["nondeterministic"]' | cut -d' ' -f1)
size() { sql "$T/scan.db" "SELECT MAX(v.size) FROM variant_artifacts v JOIN jobs j ON v.job_id = j.id WHERE j.input = 'bundles/$1'"; }
s_multi=$(size "$multi") s_one=$(size "$one")
[[ $s_multi =~ ^[0-9]+$ && $s_one =~ ^[0-9]+$ ]] || fail "no artifact sizes in the scan database: '$s_multi' '$s_one'"
((s_multi > s_one)) || fail "the multi-module job's output ($s_multi B) is not longer than one module's ($s_one B)"


# A bundle that cannot be replayed (its first module added lazily), named in a manifest: exit 2
# at its line, with the reason.
unpack_bundles "$T/cap" "$multi"
mv "$T/cap/bundles/$multi" "$T/cap/bundles/lazyfirst"
python3 - "$T/cap/bundles/lazyfirst/bundle.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["inputs"][0]["lazy"] = True; json.dump(j, open(sys.argv[1], "w"))
PY
printf 'name = "x"\nbundles = [\n  "cap/bundles/%s",\n  "cap/bundles/%s",\n]\n' "$varied" lazyfirst >"$T/bad.toml"
expect_exit 2 "$KDET" scan "$T/bad.toml" --db "$T/bad.db"
expect_output "bad.toml:4: bundle cap/bundles/lazyfirst: .*cannot replay it"
[[ ! -e $T/bad.db ]] || fail "a bad manifest must leave no database"

# kdet explain BUNDLE_DIR: the same rules as run's replay.
echo_b=$(ids 'len(b["inputs"]) == 1 and not b["nondeterministic"] and "fake" in b["library"]["path"]')
expect_exit 0 "$KDET" explain "$T/cap/bundles/$echo_b" --runs 4 --min-cell-runs 2 --max-cell-runs 4 \
  --budget 30 --json "$T/ex.json"
expect_output "bundle      $echo_b replayed with $FAKE"
# The packed bundle's input is compiled from a copy of it (a temporary folder named by the id).
[[ $(json_eval "$T/ex.json" "d['replay']['bundle'], d['input'].endswith('/$echo_b/inputs/00-module.ll')") == "('$echo_b', True)" ]] || fail "explain JSON replay"
expect_exit 2 "$KDET" explain "$T/cap/bundles/$echo_b" -- -fake-mode=garbage
expect_output 'brings its own library'
expect_exit 2 "$KDET" explain "$T/cap/bundles/$echo_b" --lib "$FAKE"
# A multi-input bundle: explain replays every input (the fake's echo of both modules is
# deterministic); cache compile would compile the first alone, so it refuses.
expect_exit 0 "$KDET" explain "$T/cap/bundles/$multi" --runs 4 --min-cell-runs 2 --max-cell-runs 4 \
  --budget 30
expect_output "bundle      $multi replayed with"
expect_exit 2 "$KDET" cache compile "$T/cap/bundles/$multi" --dir "$T/cache-multi" -o "$T/m.ptx"
expect_output 'cannot be replayed yet by kdet cache compile'

# The bundle fields of scan's and explain's JSON are in their schemas (kdet.scan/1 reaches
# into kdet.impact/1 for a variant's reach: every schema is registered by its $id).
if python3 -c 'import jsonschema' 2>/dev/null; then
  for doc in "scan:$T/scan.json" "explain:$T/ex.json"; do
    python3 - "$KDET_SOURCE_DIR/docs/schemas" "${doc%%:*}" "${doc#*:}" <<'PY' || fail "${doc#*:} does not match its schema"
import glob, json, sys
from jsonschema import Draft202012Validator as V
ALL = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/*.schema.json"))]
sch = json.load(open(f"{sys.argv[1]}/kdet.{sys.argv[2]}.schema.json"))
try:
    from referencing import Registry, Resource
    v = V(sch, registry=Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in ALL))
except (ImportError, TypeError):
    from jsonschema import RefResolver
    v = V(sch, resolver=RefResolver.from_schema(sch, store={s["$id"]: s for s in ALL}))
v.validate(json.load(open(sys.argv[3])))
PY
  done
fi

# kdet cache compile BUNDLE_DIR: the captured compile through the cache; a served output the
# pipeline never got is a warning. The hit is asked for with --verify-rate 0: the default
# rate recompiles 1 hit in 32 at random, which prints "verified" instead.
expect_exit 0 "$KDET" cache compile "$T/cap/bundles/$echo_b" --dir "$T/cache" -v -o "$T/c1.ptx"
expect_output "kdet cache: miss"
expect_exit 0 "$KDET" cache compile "$T/cap/bundles/$echo_b" --dir "$T/cache" -v --verify-rate 0 -o "$T/c2.ptx"
expect_output "kdet cache: hit"
! grep -q 'not an output the pipeline got' "$T/out" || fail "the echo bundle's output is the captured one"
cmp -s "$T/c1.ptx" "$T/c2.ptx" || fail "hit and miss must serve the same bytes"
expect_exit 0 "$KDET" cache compile "$T/cap/bundles/$varied" --dir "$T/cache" --json "$T/cg.json"
expect_output "bundle $varied: the ptx served \([0-9a-f]{32}\) is not an output the pipeline got"
[[ $(json_eval "$T/cg.json" 'len(d["warnings"])') == 1 ]] || fail "the warning belongs in JSON too"
if have_cuda; then
  real_b=$(ids 'len(b["inputs"]) == 1 and b["library"]["path"].endswith("'"$(basename "$NVVM")"'")')
  expect_exit 0 "$KDET" cache compile "$T/cap/bundles/$real_b" --dir "$T/cache" -o "$T/real.ptx"
  ! grep -q 'not an output' "$T/out" || fail "real libNVVM: the cache must serve the captured PTX"
  grep -q '\.entry' "$T/real.ptx" || fail "real libNVVM: no PTX"
fi
expect_exit 2 "$KDET" cache compile "$T/cap/bundles/$echo_b" --dir "$T/cache" -- -fake-mode=garbage
expect_output 'brings its own library'
echo "capture_scan: OK"
