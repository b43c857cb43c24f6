#!/usr/bin/env bash
# tier: cuda
# The reach summary of run, scan and builds reports, with the real ptxas of CUDA 13.0 on the two
# real pairs of libNVVM 13.0 PTX variants (tests/data/nvvm_real/README.md): an exec compiler
# that gives a pair's A and B variants in turn puts a real variant pair into
# - a `kdet run` (text and JSON): gen_1277 stops before the GPU (cubins identical) with 51
#   registers and 2 blocks/SM on sm_80; gen_1473 for -arch=compute_90 changes 348 of 2224
#   SASS words with the same 63 registers and 4 blocks/SM; no -arch is "no target"; --no-reach;
# - a scan of both (text, JSON, HTML, and --report re-rendering): the census line "of 2 varying
#   jobs: 1 stop before the GPU, 1 change SASS, 0 change registers, 0 change occupancy";
# - `kdet capture --builds 2` and `kdet capture compare` (text, JSON, HTML, JUnit);
# and every register count is checked against ptxas -v's own line for that variant.
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA's ptxas is not installed"
D=$KDET_SOURCE_DIR/tests/data/nvvm_real
PTXAS=/usr/local/cuda/bin/ptxas

# ptxas -v's register count for variant $1 (gen_1473.a) on $2 (sm_80).
regs_of() {
  "$PTXAS" -v -arch="$2" "$D/$1.ptx" -o "$T/regs.cubin" 2>&1 |
    sed -n 's/.*Used \([0-9]*\) registers.*/\1/p'
}
R1277_80=$(regs_of gen_1277.a sm_80)
R1473_80=$(regs_of gen_1473.a sm_80)
R1473_90=$(regs_of gen_1473.a sm_90)
expect_eq "ptxas -v: gen_1277 B on sm_80" "$(regs_of gen_1277.b sm_80)" "$R1277_80"
expect_eq "ptxas -v: gen_1473 B on sm_80" "$(regs_of gen_1473.b sm_80)" "$R1473_80"
expect_eq "ptxas -v: gen_1473 B on sm_90" "$(regs_of gen_1473.b sm_90)" "$R1473_90"
# The figures docs/IMPACT.md gives.
expect_eq "documented registers" "$R1277_80 $R1473_80 $R1473_90" "51 48 63"

# alt.sh DIR K OUTPUT [options...]: K's A variant on runs 1, 3, 4, 6, ... and B on 2, 5, ...
# of DIR's counter, so A is the most common one.
cat >"$T/alt.sh" <<SH
#!/bin/sh
c="\$1/\$2.count"; n=\$(cat "\$c" 2>/dev/null || echo 0); echo \$((n + 1)) >"\$c"
if [ \$((n % 3)) = 1 ]; then cp "$D/\$2.b.ptx" "\$3"; else cp "$D/\$2.a.ptx" "\$3"; fi
SH
chmod +x "$T/alt.sh"

# --- kdet run ---
mkdir "$T/run"
run_pair() { # run_pair K OPTION JSON [kdet options...]
  local k=$1 opt=$2 json=$3
  shift 3
  "$KDET" run "$D/$k.ll" -n 6 -j 1 --unnamed natural --json "$json" "$@" \
    --cmd "$T/alt.sh $T/run $k {output} $opt"
}
expect_exit 1 run_pair gen_1277 -arch=compute_80 "$T/r1277.json"
expect_output "reach: stops before the GPU \(cubins identical\): sm_80, $R1277_80 registers, 2 blocks/SM"
v='["variants"][1]["reach"]'
expect_eq "run 1277 reach" "$(json_get "$T/r1277.json" "$v"'["reach"]')" ptx
expect_eq "run 1277 before the GPU" "$(json_get "$T/r1277.json" "$v"'["stops_before_gpu"]')" True
expect_eq "run 1277 registers" "$(json_get "$T/r1277.json" "$v"'["kernels"][0]["registers_b"]')" "$R1277_80"
expect_eq "run 1277 blocks" "$(json_get "$T/r1277.json" "$v"'["kernels"][0]["blocks_per_sm_b"]')" 2
expect_eq "run 1277 census" "$(json_get "$T/r1277.json" '["reach_census"]["stop_before_gpu"]')" 1

expect_exit 1 run_pair gen_1473 -arch=compute_90 "$T/r1473.json"
expect_output "reach: SASS: 348 of 2224 instructions changed, 1 moved, same $R1473_90 registers, same occupancy \(4 blocks/SM\) on sm_90"
expect_eq "run 1473 reach" "$(json_get "$T/r1473.json" "$v"'["reach"]')" sass
expect_eq "run 1473 arch" "$(json_get "$T/r1473.json" "$v"'["arch"]')" sm_90
expect_eq "run 1473 kernel" \
  "$(json_eval "$T/r1473.json" 'd["variants"][1]["reach"]["kernels"][0]["changed"], d["variants"][1]["reach"]["kernels"][0]["registers_a"], d["variants"][1]["reach"]["kernels"][0]["blocks_per_sm_a"]')" \
  "(348, $R1473_90, 4)"

# No -arch: the target is not guessed from the PTX's .target.
expect_exit 1 run_pair gen_1473 "" "$T/none.json"
expect_output 'reach: reach unknown: no target \(no -arch in the options\)'
expect_eq "no target" "$(json_get "$T/none.json" "$v"'["unknown"]')" "no target (no -arch in the options)"
expect_eq "no target reach" "$(json_get "$T/none.json" "$v"'["reach"]')" None
# A $KDET_PTXAS that is no program is bad input, said before any run (exit 2); --no-reach
# needs no ptxas.
KDET_PTXAS=$T/nope expect_exit 2 run_pair gen_1473 -arch=compute_80 "$T/bad.json"
expect_output 'KDET_PTXAS .*/nope: not an executable file'
grep -q '^verdict' "$T/out" && fail "runs were made before the bad KDET_PTXAS was named"
KDET_PTXAS=$T/nope expect_exit 1 run_pair gen_1473 -arch=compute_80 "$T/bad.json" --no-reach
# --no-reach: nothing assembled, no reach anywhere.
expect_exit 1 run_pair gen_1473 -arch=compute_80 "$T/off.json" --no-reach
grep -Eq '^ *reach' "$T/out" && fail "--no-reach still printed a reach"
expect_eq "no reach key" "$(json_eval "$T/off.json" '"reach" in d["variants"][1] or "reach_census" in d')" False

# --- kdet scan ---
mkdir "$T/scan"
cp "$D/gen_1277.ll" "$D/gen_1473.ll" "$T/scan/"
cat >"$T/scan/cc.sh" <<SH
#!/bin/sh
exec "$T/alt.sh" "$T/scan" "\$(basename "\$1" .ll)" "\$2"
SH
chmod +x "$T/scan/cc.sh"
cat >"$T/scan/m.toml" <<TOML
inputs = ["gen_1277.ll", "gen_1473.ll"]
targets = ["80"]
[[compiler]]
name = "alt"
backend = "exec"
command = "$T/scan/cc.sh {input} {output} -arch=compute_{target}"
[budget]
max_runs = 6
TOML
census="of 2 varying jobs: 1 stop before the GPU, 1 change SASS, 0 change registers, 0 change occupancy"
expect_exit 1 "$KDET" scan "$T/scan/m.toml" --db "$T/scan.db" -j 1 --json "$T/scan.json" \
  --report-html "$T/scan.html"
expect_output "reach: +$census"
expect_output "^ +reach: stops before the GPU \(cubins identical\): sm_80, $R1277_80 registers, 2 blocks/SM"
expect_output "^ +reach: SASS: 3 of 2120 instructions changed, same $R1473_80 registers, same occupancy \(5 blocks/SM\) on sm_80"
expect_eq "scan census" "$(json_eval "$T/scan.json" '[d["summary"]["reach"][k] for k in ("varying", "stop_before_gpu", "change_sass", "change_registers", "unknown")]')" \
  "[2, 1, 1, 0, 0]"
expect_eq "scan variants" "$(json_eval "$T/scan.json" '[(j["input"], v["reach"]["reach"], v["reach"]["kernels"][0]["registers_b"], v["reach"]["kernels"][0]["blocks_per_sm_b"]) for j in d["jobs"] for v in j["variants"] if "reach" in v]')" \
  "[('gen_1277.ll', 'ptx', $R1277_80, 2), ('gen_1473.ll', 'sass', $R1473_80, 5)]"
grep -q "reach: $census" "$T/scan.html" || fail "the HTML report lacks the census line"
grep -q "reach: SASS: 3 of 2120 instructions changed" "$T/scan.html" || fail "the HTML job card lacks the reach"
# Re-rendered from the database alone (the artifacts it holds), and left out on request.
expect_exit 1 "$KDET" scan --report "$T/scan.db"
expect_output "reach: +$census"
KDET_PTXAS=$T/nope expect_exit 2 "$KDET" scan --report "$T/scan.db"
expect_output 'KDET_PTXAS .*/nope: not an executable file'
expect_exit 1 "$KDET" scan --report "$T/scan.db" --no-reach --json "$T/scan-off.json"
grep -Eq '^ *reach' "$T/out" && fail "scan --no-reach still printed a reach"
expect_eq "scan no reach" "$(json_eval "$T/scan-off.json" '"reach" in d["summary"]')" False

# --- kdet capture --builds / compare ---
mkdir -p "$T/b/bin"
cat >"$T/b/bin/mycc" <<SH
#!/bin/sh
# mycc -arch=compute_80 K.ll -o OUT: K's A variant in build 1, its B variant in build 2.
n=\$(cat "$T/b/n" 2>/dev/null || echo 0)
if [ "\$n" = 1 ]; then cp "$D/\$(basename "\$2" .ll).b.ptx" "\$4"; else cp "$D/\$(basename "\$2" .ll).a.ptx" "\$4"; fi
SH
chmod +x "$T/b/bin/mycc"
cat >"$T/b/pipe.sh" <<SH
for k in gen_1277 gen_1473; do "$T/b/bin/mycc" -arch=compute_80 "$D/\$k.ll" -o "$T/b/\$k.ptx"; done
echo \$(( \$(cat "$T/b/n" 2>/dev/null || echo 0) + 1 )) >"$T/b/n"
SH
kcensus="of 2 varying kernels: 1 stop before the GPU, 1 change SASS, 0 change registers, 0 change occupancy"
expect_exit 1 "$KDET" capture --builds 2 --exec mycc --out "$T/b/out" --json "$T/builds.json" \
  --report-html "$T/builds.html" --junit "$T/builds.xml" -- sh "$T/b/pipe.sh"
expect_output "reach +$kcensus"
expect_output "reach: stops before the GPU \(cubins identical\): sm_80, $R1277_80 registers, 2 blocks/SM"
expect_output "reach: SASS: 3 of 2120 instructions changed, same $R1473_80 registers, same occupancy \(5 blocks/SM\) on sm_80"
expect_eq "builds census" "$(json_get "$T/builds.json" '["summary"]["reach_text"]')" "$kcensus"
expect_eq "builds kernels" "$(json_eval "$T/builds.json" '[(k["name"], k["reach"]["reach"], k["reach"]["kernels"][0]["registers_a"], k["reach"]["kernels"][0]["blocks_per_sm_a"]) for k in d["kernels"]]')" \
  "[('gen_1277', 'ptx', $R1277_80, 2), ('gen_1473', 'sass', $R1473_80, 5)]"
grep -q "reach: $kcensus" "$T/builds.html" || fail "the builds HTML lacks the census line"
grep -q "reach: stops before the GPU (cubins identical)" "$T/builds.xml" || fail "the JUnit lacks the reach"
expect_exit 1 "$KDET" capture compare "$T/b/out" --json "$T/compare.json"
expect_output "reach +$kcensus"
expect_exit 1 "$KDET" capture compare "$T/b/out" --no-reach --json "$T/compare-off.json"
grep -Eq '^ *reach' "$T/out" && fail "capture compare --no-reach still printed a reach"
expect_eq "compare no reach" "$(json_eval "$T/compare-off.json" '"reach" in d["summary"]')" False

# The documents validate against their schemas (where jsonschema is).
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$KDET_SOURCE_DIR/docs/schemas" kdet.run="$T/r1277.json" kdet.run="$T/none.json" \
    kdet.scan="$T/scan.json" kdet.builds="$T/builds.json" <<'PY'
import glob, json, sys
from jsonschema import Draft202012Validator as V
ALL = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/*.schema.json"))]
def validator(sch):
    try:
        from referencing import Registry, Resource
        return V(sch, registry=Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in ALL))
    except (ImportError, TypeError):
        from jsonschema import RefResolver
        return V(sch, resolver=RefResolver.from_schema(sch, store={s["$id"]: s for s in ALL}))
for arg in sys.argv[2:]:
    name, f = arg.split("=", 1)
    errors = list(validator(json.load(open(f"{sys.argv[1]}/{name}.schema.json"))).iter_errors(json.load(open(f))))
    if errors:
        sys.exit(f"{f}: {errors[0].message} at {list(errors[0].absolute_path)}")
PY
else
  echo "reach_real: python3-jsonschema not installed; the JSON's shape is not checked" >&2
fi
echo "$NAME: all checks passed"
