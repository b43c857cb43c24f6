#!/usr/bin/env bash
# tier: cuda
# kdet impact with the real ptxas of CUDA 13.0 on the two real pairs of libNVVM 13.0 PTX
# variants (tests/data/nvvm_real/README.md):
# - gen_1277's variants stop before the GPU (exit 0, reach ptx); gen_1473's change the SASS
#   with the same 48 registers and 5 blocks per SM on sm_80 (exit 1, reach sass);
# - the same pairs as cubins (spills unknown), on every architecture the brief names, with
#   registers, barriers, stack frame and spills compared with ptxas -v's own lines;
# - kdet diff of two cubins: the reach and each changed kernel's resources and occupancy;
# - a `kdet run --out` folder and a scan job (named by its label): each variant against the most common one, with
#   the census line; a ptxas that fails is exit 3 with its message; bad options exit 2;
# - the JSON validates against docs/schemas/kdet.impact.schema.json (where jsonschema is).
source "$(dirname "$0")/lib/common.bash"
have_cuda || skip "CUDA's ptxas is not installed"
D=$KDET_SOURCE_DIR/tests/data/nvvm_real
PTXAS=/usr/local/cuda/bin/ptxas

expect_exit 0 "$KDET" impact "$D/gen_1277.a.ptx" "$D/gen_1277.b.ptx" --json "$T/1277.json"
expect_output 'stops before the GPU: the sm_80 cubins are identical'
expect_eq "1277 reach" "$(json_get "$T/1277.json" '["comparisons"][0]["reach"]')" ptx
expect_eq "1277 registers" \
  "$(json_get "$T/1277.json" '["comparisons"][0]["kernels"][0]["resources_a"]["registers"]')" 51

expect_exit 1 "$KDET" impact "$D/gen_1473.a.ptx" "$D/gen_1473.b.ptx" --arch sm_80 --json "$T/1473.json"
expect_output 'SASS changed in 1 of 1 kernel on sm_80'
k='["comparisons"][0]["kernels"][0]'
expect_eq "1473 reach" "$(json_get "$T/1473.json" '["comparisons"][0]["reach"]')" sass
expect_eq "1473 registers" "$(json_get "$T/1473.json" "$k"'["resources_b"]["registers"]')" 48
expect_eq "1473 blocks" "$(json_get "$T/1473.json" "$k"'["occupancy_b"]["blocks_per_sm"]')" 5
expect_eq "1473 block from" "$(json_get "$T/1473.json" "$k"'["block_from"]')" maxntid

# ptxas -v's own numbers for each variant and architecture, against kdet's from the cubin.
for sm in sm_80 sm_86 sm_89 sm_90 sm_100 sm_120; do
  for v in gen_1277.a gen_1473.a gen_1473.b; do
    "$PTXAS" -v -arch=$sm "$D/$v.ptx" -o "$T/$v.$sm.cubin" 2>"$T/v.txt"
    want_regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$T/v.txt")
    want_bars=$(sed -n 's/.*used \([0-9]*\) barriers.*/\1/p' "$T/v.txt")
    want_frame=$(sed -n 's/^ *\([0-9]*\) bytes stack frame.*/\1/p' "$T/v.txt")
    want_spill=$(sed -n 's/.*, \([0-9]*\) bytes spill stores.*/\1/p' "$T/v.txt")
    expect_exit 0 "$KDET" impact "$D/$v.ptx" "$D/$v.ptx" --arch $sm --json "$T/self.json"
    r='["comparisons"][0]["kernels"][0]["resources_a"]'
    expect_eq "$v $sm registers" "$(json_get "$T/self.json" "$r"'["registers"]')" "$want_regs"
    expect_eq "$v $sm barriers" "$(json_get "$T/self.json" "$r"'["barriers"]')" "$want_bars"
    expect_eq "$v $sm frame" "$(json_get "$T/self.json" "$r"'["stack_frame"]')" "$want_frame"
    expect_eq "$v $sm spills" "$(json_get "$T/self.json" "$r"'["spill_stores"]')" "$want_spill"
  done
  # Cubins given as they are: the same reach; spills unknown, never made up.
  want=$(cmp -s "$T/gen_1473.a.$sm.cubin" "$T/gen_1473.b.$sm.cubin" && echo 0 || echo 1)
  expect_exit "$want" "$KDET" impact "$T/gen_1473.a.$sm.cubin" "$T/gen_1473.b.$sm.cubin" \
    --json "$T/cubin.json"
  expect_eq "cubin $sm spills" \
    "$(json_get "$T/cubin.json" "$k"'["resources_a"]["spill_stores"]')" None
  expect_eq "cubin $sm arch" "$(json_get "$T/cubin.json" '["comparisons"][0]["arch"]')" $sm
done

# kdet diff of two cubins shows the same reach, with each changed kernel's resources.
expect_exit 1 "$KDET" diff "$T/gen_1473.a.sm_80.cubin" "$T/gen_1473.b.sm_80.cubin" --json "$T/diff.json"
expect_output 'reach: SASS changed in 1 of 1 kernel on sm_80'
expect_output 'gen_1473: registers 48 -> 48, .*5 blocks/40 warps -> 5 blocks/40 warps per SM'
expect_eq "diff impact" "$(json_get "$T/diff.json" '["impact"]["kernels"][0]["occupancy_a"]["blocks_per_sm"]')" 5

# A run folder: an exec compiler that gives A's PTX on odd runs and B's on even ones (a
# counter file, so the runs are the same every time with -j 1).
cat >"$T/alt.sh" <<'SH'
#!/bin/sh
n=$(cat "$1/count" 2>/dev/null || echo 0); echo $((n + 1)) >"$1/count"
if [ $((n % 3)) = 2 ]; then cp "$2" "$4"; else cp "$3" "$4"; fi
SH
chmod +x "$T/alt.sh"
expect_exit 1 "$KDET" run "$D/gen_1473.ll" -n 6 -j 1 --unnamed natural --out "$T/run" \
  --cmd "$T/alt.sh $T $D/gen_1473.b.ptx $D/gen_1473.a.ptx {output}"
expect_exit 1 "$KDET" impact "$T/run" --json "$T/run.json"
expect_output 'of 1 varying variant: 0 stop before the GPU, 1 change SASS, 0 change registers'
expect_eq "run dir source" "$(json_get "$T/run.json" '["source"]["kind"]')" run_dir
expect_eq "run dir runs" "$(json_get "$T/run.json" '["comparisons"][0]["runs_b"]')" 2

# A scan job: its label or an id prefix names it; the job's target (80) is the arch.
cat >"$T/alt-scan.sh" <<SH
#!/bin/sh
exec "$T/alt.sh" "$T/scan" "$D/gen_1277.b.ptx" "$D/gen_1277.a.ptx" "\$2"
SH
chmod +x "$T/alt-scan.sh"
mkdir "$T/scan"
cp "$D/gen_1277.ll" "$T/scan/k.ll"
printf 'inputs = ["k.ll"]\ntargets = ["80"]\n[[compiler]]\nname = "alt"\nbackend = "exec"\ncommand = "%s {input} {output}"\n[budget]\nmax_runs = 6\n' \
  "$T/alt-scan.sh" >"$T/scan/m.toml"
expect_exit 1 "$KDET" scan "$T/scan/m.toml" --db "$T/scan.db" -j 1 -q
expect_exit 0 "$KDET" impact --db "$T/scan.db" --job "k.ll alt 80 default" --json "$T/job.json"
expect_output 'of 1 varying variant: 1 stop before the GPU, 0 change SASS'
expect_eq "job arch" "$(json_get "$T/job.json" '["comparisons"][0]["arch"]')" sm_80
expect_eq "job reach" "$(json_get "$T/job.json" '["comparisons"][0]["reach"]')" ptx
expect_exit 2 "$KDET" impact --db "$T/scan.db" --job nosuchjob
expect_output '--job nosuchjob: no job'

# A ptxas that fails is data: exit 3 and its message; a missing one or a bad --arch is exit 2.
printf '#!/bin/sh\necho "ptxas fatal   : simulated failure" >&2\nexit 255\n' >"$T/badptxas"
chmod +x "$T/badptxas"
expect_exit 3 "$KDET" impact "$D/gen_1277.a.ptx" "$D/gen_1277.b.ptx" --ptxas "$T/badptxas" \
  --json "$T/fail.json"
expect_output 'simulated failure'
expect_eq "failed reach" "$(json_get "$T/fail.json" '["comparisons"][0]["reach"]')" None
expect_exit 2 "$KDET" impact "$D/gen_1277.a.ptx" "$D/gen_1277.b.ptx" --ptxas "$T/nope"
expect_output '--ptxas .*not an executable file'
expect_exit 2 "$KDET" impact "$D/gen_1277.a.ptx" "$D/gen_1277.b.ptx" --arch sm_x
expect_output '--arch sm_x'
expect_exit 2 "$KDET" impact "$D/gen_1277.a.ptx" "$T/gen_1473.a.sm_80.cubin"
expect_output 'two PTX files or two cubins'
expect_exit 2 "$KDET" impact "$T/gen_1473.a.sm_80.cubin" "$T/gen_1473.b.sm_80.cubin" --arch sm_90
expect_output 'the cubins are for sm_80'

if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$KDET_SOURCE_DIR/docs/schemas/kdet.impact.schema.json" "$T"/{1277,1473,cubin,run,job,fail}.json <<'PY'
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
for path in sys.argv[2:]:
    errors = list(v.iter_errors(json.load(open(path))))
    if errors:
        sys.exit(f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}")
# The schema can fail: a kernel without its reach is rejected.
doc = json.load(open(sys.argv[3]))
del doc["comparisons"][0]["kernels"][0]["reach"]
if not list(v.iter_errors(doc)):
    sys.exit("the schema accepted a kernel without a reach")
PY
else
  echo "impact_real: python3-jsonschema not installed; the JSON's shape is not checked" >&2
fi
echo "impact_real: ok"
