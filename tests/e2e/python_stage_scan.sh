#!/usr/bin/env bash
# tier: quick
# python_stage_scan.sh: a scan manifest's `backend = "python"` compilers (file relative to the
# manifest, function, python): the heap-following stage is NONDETERMINISTIC, the hash-seed stage under
# hashseed fixed and the llvmlite recipe (when /usr/bin/python3 has llvmlite) do not; a python
# compiler with lib, or a missing function, is a manifest error naming its line.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
D=$KDET_SOURCE_DIR/tests/data/python_stages
mkdir -p "$T/stages"
cp "$D/heap_order.py" "$D/hash_order.py" "$T/stages/"
cp "$D/words.txt" "$T/words.txt"
compiler() { printf '[[compiler]]\nname = "%s"\nbackend = "python"\nfile = "%s"\nfunction = "compile"\npython = "%s"\n' "$1" "$2" "$PY"; }
{
  printf 'inputs = ["words.txt"]\n'
  compiler heap stages/heap_order.py
  compiler hash stages/hash_order.py
  printf '[setting]\nhashseed = "fixed"\nseed = 3\n[budget]\nmax_runs = 16\n'
} >"$T/m.toml"
"$KDET" scan "$T/m.toml" --db "$T/m.db" --color never --json "$T/m.json" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
expect_eq "scan exit (heap stage varies)" "$rc" 1
grep -q 'NONDETERMINISTIC  *words.txt heap' "$T/out" || { cat "$T/out" "$T/err"; fail "the heap stage's job is not NONDETERMINISTIC"; }
grep -q 'NONDETERMINISTIC  *words.txt hash' "$T/out" && { cat "$T/out"; fail "the hash stage varied under hashseed fixed"; }

if "$PY" -c 'import llvmlite.binding' 2>/dev/null; then
  cp "$EX/nvvm/llvm7/saxpy.ll" "$T/saxpy.ll"
  cp "$KDET_SOURCE_DIR/python/kdet_stage/llvmlite_ptx.py" "$T/stages/"
  {
    printf 'inputs = ["saxpy.ll"]\ntargets = ["70", "80"]\n'
    compiler llvmlite stages/llvmlite_ptx.py
    printf 'target_option = "-mcpu=sm_{target}"\n[budget]\nmax_runs = 8\n'
  } >"$T/l.toml"
  "$KDET" scan "$T/l.toml" --db "$T/l.db" --color never >"$T/out" 2>"$T/err" && rc=0 || rc=$?
  expect_eq "scan exit (llvmlite recipe)" "$rc" 0
  [[ $(sql "$T/l.db" "select count(distinct job_id) from runs") == 2 ]] || fail "two targets, two jobs"
else
  echo "$NAME: llvmlite scan not checked: /usr/bin/python3 has no llvmlite"
fi

{
  printf 'inputs = ["words.txt"]\n'
  compiler bad stages/heap_order.py
  printf 'lib = "/dev/null"\n'
} >"$T/bad.toml"
expect_exit 2 "$KDET" scan "$T/bad.toml" --db "$T/bad.db"
expect_output "bad.toml:8: compiler 'bad': a Python stage takes file"
{
  printf 'inputs = ["words.txt"]\n[[compiler]]\nname = "nofn"\nbackend = "python"\nfile = "stages/heap_order.py"\n'
} >"$T/nofn.toml"
expect_exit 2 "$KDET" scan "$T/nofn.toml" --db "$T/nofn.db"
expect_output "compiler 'nofn' needs 'function'"
echo "ok: python stage scan"
