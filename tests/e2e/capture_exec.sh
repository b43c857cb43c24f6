#!/usr/bin/env bash
# tier: cuda
# kdet capture of command compiles: real nvcc and ptxas run through Python's
# subprocess from a thread pool are each recorded (nvcc's own cicc and ptxas
# children too) with the program's identity, inputs, exit status and outputs,
# and the pipeline's files are those it makes without capture.
source "$(dirname "$0")/lib/common.bash"
CUDA=/usr/local/cuda
[[ -x $CUDA/bin/nvcc && -x $CUDA/bin/ptxas ]] || skip "nvcc or ptxas absent under $CUDA"
need_cmd python3 "runs the pipeline"
POOL=$KDET_SOURCE_DIR/tests/capture/exec_pool.py
export PATH=$CUDA/bin:$PATH CUDA_PATH=$CUDA

# Three small kernels, built once without capture (the reference) and once under it.
for d in ref cap; do
  mkdir -p "$T/$d"
  for i in 1 2 3; do
    echo "__global__ void k$i(float* a) { a[threadIdx.x] *= $i.5f + a[threadIdx.x + $i]; }" >"$T/$d/k$i.cu"
  done
done
python3 "$POOL" "$T/ref" sm_90 >/dev/null || skip "nvcc cannot build the kernels here (no host compiler?)"
expect_exit 0 "$KDET" capture --out "$T/c" --json "$T/c.json" -- python3 "$POOL" "$T/cap" sm_90
expect_output 'exec_pool: 3 kernels, return codes \[0, 0, 0\]'
expect_output 'compiles   nvvm 0, nvrtc 0, nvjitlink 0, exec 12'
expect_output 'never seen nvvm, nvrtc, nvjitlink'
J=$T/c.json
# Per kernel: nvcc -ptx (which runs cicc, then ptxas to check the PTX) and ptxas -o cubin.
expect_eq "compiles per program" "$(json_eval "$J" 'sorted(__import__("collections").Counter(c["library"].split("/")[-1] for c in d["compiles"]).items())')" \
  "[('cicc', 3), ('nvcc', 3), ('ptxas', 6)]"
expect_eq "every compile is kind exec, exited 0" "$(json_eval "$J" '{(c["kind"], c["result"], c["exec"]["status"]) for c in d["compiles"]}')" "{('exec', 0, 'exited 0')}"
expect_eq "nvcc identity" "$(json_eval "$J" '{c["library"] for c in d["compiles"] if c["exec"]["argv0"] == "nvcc"}')" "{'$(realpath $CUDA/bin/nvcc)'}"
expect_eq "ptxas identity" "$(json_eval "$J" '{c["library"] for c in d["compiles"] if c["library"].endswith("/ptxas")}')" "{'$(realpath $CUDA/bin/ptxas)'}"
# Their children: nvcc runs cicc and ptxas through a shell (system()), so they are
# the compiles not started by the Python process (the nvcc compiles' parent).
expect_eq "nvcc's children" "$(json_eval "$J" 'sorted(c["library"].split("/")[-1] for c in d["compiles"] if c["exec"]["ppid"] not in {n["exec"]["ppid"] for n in d["compiles"] if n["exec"]["argv0"] == "nvcc"})')" \
  "['cicc', 'cicc', 'cicc', 'ptxas', 'ptxas', 'ptxas']"
# A script-run ptxas compile replays with the captured ptxas (its argv as an exec template) and
# gives the captured cubin back; scan's written manifest lists it, and a scan of it runs that
# template (a compiler of its own, named after the program) and finds it deterministic. nvcc's own
# cicc runs (three input files) and its ptxas check (no output file) are comments, with the reason.
pb=$(json_eval "$J" '[c["bundle"] for c in d["compiles"] if c["library"].endswith("/ptxas") and "-o" in c["exec"]["args"] and c["exec"]["ppid"] == [n for n in d["compiles"] if n["exec"]["argv0"] == "nvcc"][0]["exec"]["ppid"]][0]')
expect_exit 0 "$KDET" run "$T/c/bundles/$pb" -n 2
expect_output "captured  output [0-9a-f]*: 2 of 2 runs gave it back"
grep -q "^  \"bundles/$pb\", # exec" "$T/c/manifest.toml" || fail "manifest.toml does not list command bundle $pb"
grep -q "^#   bundles/.*(exec.*cannot be replayed yet: kdet replays a command with one input file" "$T/c/manifest.toml" ||
  fail "manifest.toml: no comment for nvcc's inner compiles"
printf 'bundles = ["c/bundles/%s"]\n[budget]\nmax_runs = 4\nfirst_round = 4\n' "$pb" >"$T/one.toml"
expect_exit 0 "$KDET" scan "$T/one.toml" --db "$T/one.db" --json "$T/one.json"
expect_eq "the command bundle's scan job" "$(json_eval "$T/one.json" '[(j["status"], j["compiler"], j["runs"]) for j in d["jobs"]]')" \
  "[('deterministic', 'captured-ptxas', 4)]"

# The pipeline's own files: produced, and equal to those made without capture.
for i in 1 2 3; do
  cmp "$T/ref/k$i.cubin" "$T/cap/k$i.cubin" || fail "k$i.cubin differs under capture"
  cmp "$T/ref/k$i.ptx" "$T/cap/k$i.ptx" || fail "k$i.ptx differs under capture"
done
# The explicit ptxas compile of k2: its input is k2.ptx (copied), its output k2.cubin (stored).
unpack_bundles "$T/c" # the tests below read the bundles' files
id=$(json_eval "$J" '[c["bundle"] for c in d["compiles"] if c["exec"]["args"][-1].endswith("k2.cubin") and c["library"].endswith("/ptxas")][0]')
B=$T/c/bundles/$id
expect_eq "ptxas options" "$(json_eval "$B/bundle.json" 'd["options"]')" "['-arch=sm_90', '{input}', '-o', '{output}']"
cmp "$B/$(json_eval "$B/bundle.json" 'd["inputs"][0]["file"]')" "$T/cap/k2.ptx" || fail "bundle input is not k2.ptx"
cmp "$B/$(json_eval "$B/bundle.json" 'd["outputs"][0]["file"]')" "$T/cap/k2.cubin" || fail "bundle output is not k2.cubin"
expect_eq "output kind" "$(json_eval "$B/bundle.json" 'd["outputs"][0]["kind"]')" cubin
# nvcc's bundle: its input k1.cu and output (kind ptx) equal the files; cwd and environment recorded.
c=$(json_eval "$J" '[i for i, c in enumerate(d["compiles"]) if c["exec"]["argv0"] == "nvcc" and "k1.cu" in c["exec"]["args"]][0]')
expect_eq "nvcc cwd" "$(json_eval "$J" "d['compiles'][$c]['exec']['cwd']")" "$T/cap"
json_eval "$J" "any(e.startswith('PATH=') and ':$CUDA/bin:' in e for e in d['compiles'][$c]['exec']['env'])" | grep -q True || fail "PATH not recorded"
json_eval "$J" "'CUDA_PATH=$CUDA' in d['compiles'][$c]['exec']['env']" | grep -q True || fail "CUDA_PATH not recorded"
B=$T/c/bundles/$(json_eval "$J" "d['compiles'][$c]['bundle']")
cmp "$B/inputs/00-k1.cu" "$T/cap/k1.cu" || fail "nvcc input not copied"
cmp "$B/$(json_eval "$B/bundle.json" 'd["outputs"][0]["file"]')" "$T/cap/k1.ptx" || fail "nvcc output not stored"
# The JSON holds to its schema (kind exec and its `exec` object), when jsonschema is here.
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$KDET_SOURCE_DIR/docs/schemas" "$J" <<'PY' || fail "capture JSON does not match docs/schemas/kdet.capture.schema.json"
import json, sys
from jsonschema import Draft202012Validator as V
schema = json.load(open(sys.argv[1] + "/kdet.capture.schema.json"))
doc = json.load(open(sys.argv[2]))
V(schema).validate(doc)
del doc["compiles"][0]["exec"]
assert not V(schema).is_valid(doc), "an exec compile without `exec` was accepted"
PY
fi

# The same build again into a fresh folder, in another working folder: the
# bundles are the same ids (no path, pid or temporary name in them).
mkdir -p "$T/cap2" && cp "$T"/cap/*.cu "$T/cap2/"
expect_exit 0 "$KDET" capture --json "$T/c2.json" -- python3 "$POOL" "$T/cap2" sm_90
expect_eq "same bundles from another folder" "$(json_eval "$T/c2.json" 'sorted(b["id"] for b in d["bundles"])')" "$(json_eval "$J" 'sorted(b["id"] for b in d["bundles"])')"

# nvcc run by kdet itself (the pipeline is the compiler) is captured too.
cp "$T/cap/k3.cu" "$T/top.cu"
expect_exit 0 "$KDET" capture --json "$T/top.json" -- nvcc -cubin -arch=sm_90 "$T/top.cu" -o "$T/top.cubin"
[[ -s $T/top.cubin ]] || fail "nvcc under capture made no cubin"
expect_eq "top-level nvcc" "$(json_eval "$T/top.json" '[c["exec"]["outputs"] for c in d["compiles"] if c["exec"]["argv0"] == "nvcc"]')" "[[{'kind': 'cubin', 'path': '$T/top.cubin'}]]"

# nvcc's conventional outputs (no -o): k1.cubin in the working folder, k1.ptx in -odir.
mkdir -p "$T/conv/od" && cp "$T/cap/k1.cu" "$T/conv/" && cd "$T/conv"
expect_exit 0 "$KDET" capture --json "$T/conv.json" -- sh -c 'nvcc -cubin -arch=sm_90 k1.cu && nvcc -ptx -arch=sm_90 -odir od k1.cu'
expect_eq "conventional outputs" "$(json_eval "$T/conv.json" '[c["exec"]["outputs"] for c in d["compiles"] if c["exec"]["argv0"] == "nvcc"]')" \
  "[[{'kind': 'cubin', 'path': 'k1.cubin'}], [{'kind': 'ptx', 'path': 'od/k1.ptx'}]]"
cmp od/k1.ptx "$T/cap/k1.ptx" || fail "od/k1.ptx differs from the PTX built before"
echo "$NAME: ok"
