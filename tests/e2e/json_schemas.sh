#!/usr/bin/env bash
# tier: quick
# json_schemas.sh: the JSON documents kdet writes (run, explain, scan, compare,
# diff, diff set, impact, capture and its bundles, cache compile, report, stats, key, scan trace)
# validate against the written JSON Schemas in docs/schemas/, picked by each
# document's "schema" field; and the schemas can fail: each document with a
# required key removed (top level and a nested record), a mistyped count or a
# broken report inside a diff set is rejected.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR, KDET_BINARY_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so fake_cc
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -x $CL/capture_nvvm_client ]] || skip "capture client not built (ninja kdet_capture_clients)"
python3 -c 'import jsonschema' 2>/dev/null ||
  skip "python3 module jsonschema (Debian python3-jsonschema) not installed"
SCHEMAS=$KDET_SOURCE_DIR/docs/schemas
IN=$EX/nvvm/llvm7/saxpy.ll
LIB=$FAKES/libfakenvvm.so

# expect_verdict CMD...: CMD exits 0 or 1 (deterministic or not). The heap-order fake
# varies with heap addresses, which a sanitizer's allocator may hold still; the
# verdict is other tests' business, the document's shape is this one's.
expect_verdict() {
  "$@" >"$T/out" 2>&1 && return 0
  local rc=$?
  ((rc == 1)) || { cat "$T/out" >&2; fail "expected exit 0 or 1, got $rc: $*"; }
}

# Documents: a varying run, a crashing run (records with code and signal), a
# deterministic exec run, an explain, a scan of two compilers, a compare.
expect_verdict "$KDET" run "$IN" --lib "$LIB" -n 4 --json "$T/run-heap.json" -- -fake-mode=heaporder
expect_exit 3 "$KDET" run "$IN" --lib "$LIB" -n 2 --json "$T/run-crash.json" -- -fake-mode=crash
expect_exit 0 "$KDET" run "$IN" --cmd "$FAKES/fake_cc echo {input} {output}" -n 3 \
  --unnamed natural --json "$T/run-exec.json"
expect_verdict "$KDET" explain "$IN" --lib "$LIB" -n 8 --json "$T/explain.json" -- -fake-mode=heaporder
{ echo "inputs = [\"$IN\"]"; nvvm_compiler a; nvvm_compiler b heaporder
  printf '[budget]\nmax_runs = 4\n'; } >"$T/two.toml"
{ echo "inputs = [\"$IN\"]"; nvvm_compiler a heaporder; printf '[budget]\nmax_runs = 4\n'; } >"$T/old.toml"
{ echo "inputs = [\"$IN\"]"; nvvm_compiler a; printf '[budget]\nmax_runs = 4\n'; } >"$T/new.toml"
expect_verdict "$KDET" scan "$T/two.toml" --db "$T/two.db" --json "$T/scan.json" \
  --trace "$T/scan-trace.json" -q
expect_verdict "$KDET" scan "$T/old.toml" --db "$T/old.db" -q
expect_exit 0 "$KDET" scan "$T/new.toml" --db "$T/new.db" -q
expect_exit 0 "$KDET" compare "$T/old.db" "$T/new.db" --json "$T/compare.json"
expect_exit 0 "$KDET" compare "$T/old.db" "$T/new.db" --settle --stress --stress-cap 8 \
  --json "$T/compare-stress.json"
# kdet diff: PTX with two loads swapped, text, and two folders (a diff set).
data=$KDET_SOURCE_DIR/tests/data/diff
mkdir "$T/va" "$T/vb"
cp "$data/block_reduce.ptx" "$T/va/ptx"
awk '/ld.param.u64/ && !done { held=$0; getline; print; print held; done=1; next } { print }' \
  "$data/block_reduce.ptx" >"$T/vb/ptx"
printf 'one\ntwo\n' >"$T/va/log"
printf 'one\nthree\n' >"$T/vb/log"
expect_exit 1 "$KDET" diff "$T/va/ptx" "$T/vb/ptx" --json "$T/diff-ptx.json"
expect_exit 1 "$KDET" diff "$T/va/log" "$T/vb/log" --json "$T/diff-text.json"
expect_exit 1 "$KDET" diff "$T/va" "$T/vb" --json "$T/diff-set.json"
# kdet impact: the quick tier has no real ptxas, so one that fails gives the document (exit 3,
# the comparison carrying ptxas's message); tests/e2e/impact_real.sh checks real ones.
printf '#!/bin/sh\necho "ptxas fatal   : not in the quick tier" >&2\nexit 1\n' >"$T/fail-ptxas"
chmod +x "$T/fail-ptxas"
expect_exit 3 "$KDET" impact "$T/va/ptx" "$T/vb/ptx" --arch sm_80 --ptxas "$T/fail-ptxas" \
  --json "$T/impact.json"
# kdet run's reach of a variant: an exec compiler that gives the two PTX files in turn, for
# -arch=compute_80, with that failing ptxas (the variant's reach unknown: ptxas failed).
cat >"$T/alt.sh" <<'SH'
#!/bin/sh
n=$(cat "$1/n" 2>/dev/null || echo 0); echo $((n + 1)) >"$1/n"
if [ $((n % 2)) = 1 ]; then cp "$3" "$4"; else cp "$2" "$4"; fi
SH
chmod +x "$T/alt.sh"
KDET_PTXAS=$T/fail-ptxas expect_exit 1 "$KDET" run "$IN" -n 4 -j 1 --unnamed natural \
  --cmd "$T/alt.sh $T $T/va/ptx $T/vb/ptx {output} -arch=compute_80" --json "$T/run-reach.json"
expect_eq "run reach" "$(json_get "$T/run-reach.json" '["variants"][1]["reach"]["unknown"]')" \
  "ptxas failed"
# The cache: fake_cc in pid mode gives a new variant each compile, so a verified
# hit is a mismatch and the report lists a key with two variants.
printf 'one\ntwo\n' >"$T/k.txt"
kcc() { "$KDET" cc "$T/k.txt" --dir "$T/cache" -q "$@" -- "$FAKES/fake_cc" pid {input} {output}; }
expect_exit 0 kcc -o "$T/k1.out" --json "$T/cache-miss.json"
expect_exit 0 kcc -o "$T/k2.out" --verify-rate 1 --json "$T/cache-mismatch.json"
expect_exit 1 "$KDET" cache report --dir "$T/cache" --json "$T/cache-report.json"
expect_exit 0 "$KDET" cache stats --dir "$T/cache" --json "$T/cache-stats.json"
key_json=$(find "$T/cache" -name key.json | head -n 1)
[[ -n $key_json ]] || fail "no key.json in the cache folder"
# kdet capture: one module compiled twice in one process by the garbage fake (it varies).
expect_exit 1 "$KDET" capture --out "$T/cap" --json "$T/capture.json" -- \
  "$CL/capture_nvvm_client" "$LIB" 1 2 "$IN" -- -fake-mode=garbage
unpack_bundles "$T/cap" # bundles are packed: their files as --bundle-layout folders writes them
bundle_json=$(find "$T/cap/bundles" -name bundle.json | head -n 1)
[[ -n $bundle_json ]] || fail "no bundle.json in the capture folder"
# kdet capture compare: that capture against a second one (the garbage varies in both).
expect_exit 1 "$KDET" capture --out "$T/cap2" -- \
  "$CL/capture_nvvm_client" "$LIB" 1 2 "$IN" -- -fake-mode=garbage
expect_exit 1 "$KDET" capture compare "$T/cap" "$T/cap2" --json "$T/builds.json"

# validate.py SCHEMA_DIR NAME=FILE[:NESTED]...: each FILE against the schema its
# "schema" field names (NAME when it has none); then, for each required key of
# the top level and of the record at NESTED (a path of keys and indices joined by
# /), the document without that key must be rejected. Prints one line a document.
cat >"$T/validate.py" <<'PY'
import copy, glob, json, sys
from jsonschema import Draft202012Validator as V

# Every written schema, by $id, for the $refs between them (kdet.diff-set/1 -> kdet.diff/1):
# through `referencing` on jsonschema >= 4.18, through RefResolver on Debian 12's 4.10.
ALL = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/*.schema.json"))]
for s in ALL:
    V.check_schema(s)
def validator(sch):
    try:
        from referencing import Registry, Resource
        reg = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in ALL)
        return V(sch, registry=reg)
    except (ImportError, TypeError):
        from jsonschema import RefResolver
        return V(sch, resolver=RefResolver.from_schema(sch, store={s["$id"]: s for s in ALL}))

def at(d, path):
    for p in path.split("/") if path else []:
        d = d[int(p)] if isinstance(d, list) else d[p]
    return d

BY_FILE = {s["$id"].rsplit("/", 1)[-1]: s for s in ALL}
def deref(s, root):
    # through local $refs and those into another schema ("kdet.impact.schema.json#/$defs/x")
    while "$ref" in s:
        f, _, frag = s["$ref"].partition("#")
        root = BY_FILE[f] if f else root
        s = root["$defs"][frag.split("/")[-1]] if frag else root
    return s, root

def subschema(v, doc, path):
    # the schema of the record at path, through properties, items and $refs
    s, root = v.schema, v.schema
    for p in path.split("/") if path else []:
        s, root = deref(s, root)
        s = s["items"] if p.isdigit() else s["properties"][p]
    return deref(s, root)[0]

bad = 0
for arg in sys.argv[2:]:
    name, spec = arg.split("=", 1)
    f, _, nested = spec.partition(":")
    doc = json.load(open(f))
    sname = doc.get("schema", name).split("/")[0] if isinstance(doc, dict) else name
    sch = json.load(open(f"{sys.argv[1]}/{sname}.schema.json"))
    v = validator(sch)
    errs = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:120]}" for e in v.iter_errors(doc)]
    if errs:
        bad += 1
        print(f"{f}: INVALID against {sname}: " + "; ".join(errs[:5]))
        continue
    removed = 0
    for path in ["", nested] if nested else [""]:
        for key in subschema(v, doc, path)["required"]:
            d = copy.deepcopy(doc)
            del at(d, path)[key]
            if v.is_valid(d):
                bad += 1
                print(f"{f}: still valid without {path + '/' if path else ''}{key}")
            removed += 1
    print(f"{name}: valid; {removed} removals rejected")
sys.exit(1 if bad else 0)
PY

python3 "$T/validate.py" "$SCHEMAS" \
  kdet.run="$T/run-heap.json:records/0" kdet.run="$T/run-crash.json:records/0" \
  kdet.run="$T/run-exec.json:records/0" kdet.run="$T/run-reach.json:variants/1/reach" \
  kdet.explain="$T/explain.json:cells/0" \
  kdet.scan="$T/scan.json:jobs/0/variants/0" kdet.scan="$T/scan.json:comparisons/0/pairs/0" \
  kdet.compare="$T/compare.json:pairs/0" kdet.compare="$T/compare-stress.json:pairs/0" \
  kdet.diff="$T/diff-ptx.json:entries/0" \
  kdet.diff="$T/diff-text.json:hunks/0/lines/0" kdet.diff-set="$T/diff-set.json:artifacts/0" \
  kdet.cache.compile="$T/cache-miss.json" kdet.cache.compile="$T/cache-mismatch.json" \
  kdet.cache.report="$T/cache-report.json:keys/0/variants/1" kdet.cache.stats="$T/cache-stats.json" \
  kdet.cache.key="$key_json:input" kdet.capture="$T/capture.json:compiles/0" \
  kdet.capture="$T/capture.json:bundles/0" kdet.capture.bundle="$bundle_json:outputs/0" \
  kdet.capture.bundle="$bundle_json:inputs/0" kdet.scan-trace="$T/scan-trace.json:traceEvents/0" \
  kdet.builds="$T/builds.json:kernels/0" kdet.builds="$T/builds.json:builds/0" \
  kdet.impact="$T/impact.json:comparisons/0" \
  >"$T/v.out" 2>&1 && rc=0 || rc=$?
cat "$T/v.out"
expect_eq "validation exit" "$rc" 0
expect_eq "documents checked" "$(grep -c ': valid; ' "$T/v.out")" 25
# Every written schema is checked against a real document here.
for f in "$SCHEMAS"/*.schema.json; do
  n=$(basename "$f" .schema.json)
  grep -q "^$n: valid; " "$T/v.out" || fail "docs/schemas/$n.schema.json is checked against no document"
done

# A wrong type is rejected too: a string where a count belongs.
python3 - "$T" <<'PY'
import json, sys
d = json.load(open(f"{sys.argv[1]}/run-heap.json"))
d["runs"]["completed"] = "4"
json.dump(d, open(f"{sys.argv[1]}/run-typo.json", "w"))
PY
expect_exit 1 python3 "$T/validate.py" "$SCHEMAS" kdet.run="$T/run-typo.json"
expect_output 'INVALID against kdet.run: runs/completed'

# The diff set reaches into kdet.diff/1 through a $ref: a report inside it loses a key.
python3 - "$T" <<'PY'
import json, sys
d = json.load(open(f"{sys.argv[1]}/diff-set.json"))
del d["artifacts"][0]["report"]["entries"]
json.dump(d, open(f"{sys.argv[1]}/diff-set-cut.json", "w"))
PY
expect_exit 1 python3 "$T/validate.py" "$SCHEMAS" kdet.diff-set="$T/diff-set-cut.json"
expect_output "INVALID against kdet.diff-set: artifacts/0/report: 'entries' is a required property"
echo "$NAME: all checks passed"
