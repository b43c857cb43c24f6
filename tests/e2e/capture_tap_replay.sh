#!/usr/bin/env bash
# tier: quick
# A tapped stage replayed in-process (capture/tap_recipes.hpp): a Python build on llvmlite
# (tests/capture/llvmlite_build.py, Debian's python3-llvmlite) keeps its .ll and .ptx
# (--artifacts); capture writes a bundle of kind python for the ll -> ptx stage (kdet's
# llvmlite recipe, the target and PTX version read from the kept PTX), lists it in
# manifest.toml, and `kdet run BUNDLE` gives the kept PTX back byte for byte, DETERMINISTIC
# for a call-free module. A module with calls, whose PTX numbers call sites from a counter
# global to the process (`// callseq N`), is found NONDETERMINISTIC in one process through its
# bundle. With --builds, a ptx stage that first varies inside the process proposes `kdet
# explain` on that replay bundle.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] && $PY -c 'import llvmlite.binding' 2>/dev/null || skip "python3-llvmlite not installed for /usr/bin/python3"
SCRIPT=$(realpath "$(dirname "$0")/../capture/llvmlite_build.py")
cd "$T"
# The bundle names no interpreter: python3 on PATH replays it (scan), or --python (run).
mkdir -p "$T/bin" && ln -s "$PY" "$T/bin/python3"
printf '#!/bin/sh\nunset PYTHONHASHSEED\nmkdir -p lout\nLLVMLITE_VARY=none exec %s %s lout\n' \
  "$PY" "$SCRIPT" >"$T/pipe.sh"
chmod +x "$T/pipe.sh"

# One capture: no compile kdet sees (exit 3), the ll -> ptx stage a bundle of its own.
expect_exit 3 "$KDET" capture --artifacts 'lout/kernels.*' --out "$T/c1" --json "$T/c1.json" -- "$T/pipe.sh"
ids=$(json_eval "$T/c1.json" '" ".join(b["id"] for b in d["bundles"] if b["kind"] == "python")')
[[ $ids =~ ^[0-9a-f]{16}$ ]] || fail "one python bundle expected, got '$ids'"
B=$T/c1/bundles/$ids
expect_eq recipe "$(json_eval "$B/bundle.json" '[d["recipe"]["file"], d["recipe"]["function"], d["options"], d["tap"]["output"]]')" \
  "['recipe/llvmlite_ptx.py', 'compile', ['-mcpu=sm_70', '-mattr=+ptx60', '-O3'], 'taps/artifacts/lout/kernels.ptx']"
cmp "$B/inputs/00-kernels.ll" lout/kernels.ll || fail "the bundle's input is not the kept .ll"
cmp "$B"/outputs/*.ptx lout/kernels.ptx || fail "the bundle's output is not the kept .ptx"
grep -q "^  \"bundles/$ids\", # python" "$T/c1/manifest.toml" || { cat "$T/c1/manifest.toml"; fail "the bundle is not listed in the manifest"; }

# kdet run BUNDLE: every run in one process gives the kept PTX back, byte for byte.
expect_exit 0 "$KDET" run "$B" --python "$PY" --process same -n 6 --seed 1 --out "$T/r1"
expect_output '^verdict +NO VARIANCE SEEN in 6 runs'
expect_output "captured  output [0-9a-f]+: 6 of 6 runs gave it back"
cmp "$B"/outputs/*.ptx "$T"/r1/variants/*/output || fail "the replay gave other bytes than the kept PTX"
# The manifest's jobs replay it (python3 on PATH).
PATH=$T/bin:$PATH expect_exit 0 "$KDET" scan "$T/c1/manifest.toml" --db "$T/c1.db" --max-runs 6
# A bundle brings its own stage; cache compile takes no Python stage.
expect_exit 2 "$KDET" run "$B" --py "$B/recipe/llvmlite_ptx.py:compile" -n 2
expect_output 'a bundle brings its own'
expect_exit 2 "$KDET" cache compile "$B" --dir "$T/cache" -o "$T/x.ptx"
expect_output 'does not take a Python stage'
# A recipe changed since the capture would replay another stage: refused.
cp -r "$B" "$T/changed" && echo '# edited' >>"$T/changed/recipe/llvmlite_ptx.py"
expect_exit 2 "$KDET" run "$T/changed" --python "$PY" -n 2
expect_output 'has changed since'

# A module with calls: one process numbers its call sites on, the replay finds it.
cp "$EX/nvvm/llvm7/tiled_matmul.ll" "$T/calls.ll"
printf '#!/bin/sh\nmkdir -p cout\ncp calls.ll cout/mm.ll\nexec %s -c "import sys; sys.path.insert(0, sys.argv[1]); from kdet_stage import llvmlite_ptx as m\nopen(\\"cout/mm.ptx\\", \\"wb\\").write(m.compile(open(\\"cout/mm.ll\\", \\"rb\\").read(), [\\"-mcpu=sm_80\\"]))" %s\n' \
  "$PY" "$KDET_SOURCE_DIR/python" >"$T/calls.sh"
chmod +x "$T/calls.sh"
# The pipeline writes its module (mm.ll) and PTX (mm.ptx); --artifacts keeps both.
expect_exit 3 "$KDET" capture --artifacts 'cout/mm.*' --out "$T/c2" --json "$T/c2.json" -- "$T/calls.sh"
id2=$(json_eval "$T/c2.json" '" ".join(b["id"] for b in d["bundles"] if b["kind"] == "python")')
[[ $id2 =~ ^[0-9a-f]{16}$ ]] || fail "one python bundle expected for the module with calls, got '$id2'"
expect_exit 1 "$KDET" run "$T/c2/bundles/$id2" --python "$PY" --process same --unnamed natural -n 4 --seed 2
expect_output 'NONDETERMINISTIC'
expect_output 'differs: output: differ only in comments or whitespace'
expect_output "captured  output [0-9a-f]+: [0-9]+ of 4 runs gave it back"

# Builds whose back end varies inside the process: the next command is the replay's explain.
printf '#!/bin/sh\nunset PYTHONHASHSEED\nmkdir -p lout\nLLVMLITE_VARY=backend exec %s %s lout\n' \
  "$PY" "$SCRIPT" >"$T/pipe.sh"
expect_exit 1 "$KDET" capture --builds 3 --artifacts 'lout/kernels.*' --out "$T/b1" --json "$T/b1.json" -- "$T/pipe.sh"
expect_output 'kdet explain [^ ]*/b1/build-[0-9]/bundles/[0-9a-f]{16}'
grep -q '"bundles/[0-9a-f]*", # python' "$T/b1/build-1/manifest.toml" || fail "build 1's manifest lists no replay bundle"
echo "$NAME: ok"
