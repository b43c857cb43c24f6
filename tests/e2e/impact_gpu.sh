#!/usr/bin/env bash
# tier: cuda
# kdet impact --run: the dynamic reach of a variance, on a GPU (docs/IMPACT.md, "Dynamic
# reach"). Everywhere: a bad recipe is exit 2 with its file and line, --run without
# --recipe is exit 2, and where no GPU is, the static report comes with
# "run: skipped: no GPU: ..." and exit 3 (1 when the static part already says 1); then the
# test skips. On a GPU (the driver's libcuda.so.1 and a device):
# - a planted pair (tests/data/gpu: a race-free `kdet corpus` kernel, gen_0001.ll, and
#   gen_0001.b.ll with one folded constant changed, 3.0 to 2.5; both compiled by libNVVM 13.0
#   for compute_80 at -opt=3, so the PTX differ in that one constant) gives reproducible results
#   that differ: exit 1, "results differ in" (corpus_host_model.sh shows on the CPU that the
#   change reaches most output elements);
# - the same PTX twice gives the same results (reproducible) and a speed within the noise;
# - the real libNVVM pair gen_1473 with one thread (nothing races) gives the same results;
#   with 4096 threads its old generator's kernel races, and the report says the results do
#   not repeat rather than blaming the variant;
# - a recipe whose arguments do not match the kernel is exit 2.
source "$(dirname "$0")/lib/common.bash"
[[ -x /usr/local/cuda/bin/ptxas ]] || skip "CUDA's ptxas is not installed"
G=$KDET_SOURCE_DIR/tests/data/gpu
R=$KDET_SOURCE_DIR/tests/data/nvvm_real

printf 'kernel = "gen_0001"\ngrid = 1\nblock = 32\n[[arg]]\nbuffer = "f32"\nelements = 0\n' >"$T/bad.toml"
expect_exit 2 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --run --recipe "$T/bad.toml"
expect_output "bad.toml:6: \[\[arg\]\] 1: elements: expected an integer from 1"
expect_exit 2 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --run
expect_output "--run needs --recipe"
expect_exit 2 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --recipe "$G/gen_0001.recipe.toml"
expect_output "--recipe FILE goes with --run"

# The same PTX twice: the static part says identical (0); the run says same results.
rc=0
"$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.a.ptx" --run --recipe "$G/gen_0001.recipe.toml" \
  --launches 50 --json "$T/self.json" >"$T/self.txt" 2>&1 || rc=$?
if [[ $(json_get "$T/self.json" '["comparisons"][0]["run"].get("skipped", "")') == "no GPU"* ]]; then
  expect_eq "no GPU exit" "$rc" 3
  grep -q "run: skipped: no GPU: " "$T/self.txt" || fail "no skip line: $(cat "$T/self.txt")"
  expect_exit 1 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --run \
    --recipe "$G/gen_0001.recipe.toml"
  expect_output "run: skipped: no GPU: "
  skip "no GPU here ($(json_get "$T/self.json" '["comparisons"][0]["run"]["skipped"]')); the skip was checked"
fi
cat "$T/self.txt"
expect_eq "self exit" "$rc" 0
expect_eq "self same" "$(json_get "$T/self.json" '["comparisons"][0]["run"]["results"]["same"]')" True
expect_eq "self reproducible" "$(json_get "$T/self.json" '["comparisons"][0]["run"]["reproducible"]')" True
grep -q "same results, B .* (±" "$T/self.txt" || fail "no verdict line"

# The planted pair: B's results differ, reproducibly.
expect_exit 1 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --run \
  --recipe "$G/gen_0001.recipe.toml" --launches 50 --json "$T/planted.json"
# Of every output float the recipe names (two outputs of 65,536): the comparison covers them all.
outs=$(python3 - "$G/gen_0001.recipe.toml" <<'PY'
import sys, tomllib
r = tomllib.load(open(sys.argv[1], "rb"))
outs = [a for a in r["arg"] if a.get("buffer") == "f32" and a.get("output", True)]
print("{:,}".format(sum(a["elements"] for a in outs)))
PY
)
expect_output "results differ in [0-9,]+ of $outs floats"
expect_eq "planted reproducible" \
  "$(json_get "$T/planted.json" '["comparisons"][0]["run"]["reproducible"]')" True
d=$(json_get "$T/planted.json" '["comparisons"][0]["run"]["results"]["differing"]')
((d > 0)) || fail "planted pair: no differing float"

# The real pair, one thread: the variants' SASS differs, the results do not.
expect_exit 1 "$KDET" impact "$R/gen_1473.a.ptx" "$R/gen_1473.b.ptx" --run \
  --recipe "$R/gen_1473.1thread.recipe.toml" --launches 20 --json "$T/real1.json"
# With one thread most outputs are never written: the line says how many kept their value.
expect_output "same results( \(of [0-9,]+ elements, [0-9,]+ as before the launch\))?, B "
expect_eq "real pair reproducible" \
  "$(json_get "$T/real1.json" '["comparisons"][0]["run"]["reproducible"]')" True

# A recipe with one argument too few: the driver's parameter sizes catch it.
head -n -4 "$G/gen_0001.recipe.toml" >"$T/short.toml"
expect_exit 2 "$KDET" impact "$G/gen_0001.a.ptx" "$G/gen_0001.b.ptx" --run --recipe "$T/short.toml"
expect_output "short.toml: the recipe gives [0-9]+ arguments; kernel .gen_0001. of A takes [0-9]+"
