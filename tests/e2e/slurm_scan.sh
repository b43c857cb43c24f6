#!/usr/bin/env bash
# slurm_scan.sh: a scan run as a Slurm job array on a private one-node Slurm
# (scripts/slurm/run-local.sh: munged, slurmctld, slurmd on localhost), each
# task one --shard of scripts/slurm/kdet-scan.sbatch, then `kdet merge`; the
# merged result must equal a single-machine scan of the same manifest (same
# job ids and statuses; same runs and outputs for non-varying jobs).
# Time-boxed: the daemons get 30 s to come up, the array 180 s.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped
# (Slurm or munge absent, not root, or the daemons cannot start here).
set -euo pipefail
trap 'echo "slurm_scan: FAIL at line $LINENO" >&2' ERR
: "${KDET:?}" "${KDET_FAKES_DIR:?}" "${KDET_SOURCE_DIR:?}"
KDET=$(realpath "$KDET")
fakes=$(realpath "$KDET_FAKES_DIR")
src=$(realpath "$KDET_SOURCE_DIR")
[[ -f $fakes/libfakenvvm.so ]] || { echo "slurm_scan: SKIP: fakes not built in $fakes"; exit 77; }
for p in munged slurmctld slurmd sbatch; do
  command -v $p >/dev/null || { echo "slurm_scan: SKIP: $p not installed (apt-get install -y slurm-wlm munge)"; exit 77; }
done
((EUID == 0)) || { echo "slurm_scan: SKIP: a private slurmd needs root"; exit 77; }
tmp=$(mktemp -d)
cleanup() { bash "$src/scripts/slurm/run-local.sh" stop "$tmp/slurm" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
if ! out=$(timeout 60 bash "$src/scripts/slurm/run-local.sh" start "$tmp/slurm" 2>&1); then
  echo "slurm_scan: SKIP: a one-node Slurm cannot start here:"; echo "$out" | tail -n 20; exit 77
fi
eval "$(echo "$out" | grep '^export SLURM_CONF=')"
cat >"$tmp/m.toml" <<TOML
name = "slurm"
inputs = ["$src/examples/nvvm/llvm7/*.ll", "$src/examples/nvvm/modern/*.ll"]
targets = ["80", "90a"]
[option_sets]
O0 = ["-opt=0"]
O3 = ["-opt=3"]
[[compiler]]
name = "echo"
backend = "nvvm"
lib = "$fakes/libfakenvvm.so"
[[compiler]]
name = "heap"
backend = "nvvm"
lib = "$fakes/libfakenvvm.so"
options = ["-fake-mode=heaporder"]
[budget]
target_rate = 0.1
TOML
n=3
export KDET
timeout 180 sbatch --wait --array=1-$n --output="$tmp/task-%a.out" --chdir="$tmp" \
  "$src/scripts/slurm/kdet-scan.sbatch" "$tmp/m.toml" "$tmp/shards" >"$tmp/sbatch.out" 2>&1 && rc=0 || rc=$?
if ((rc != 0)); then
  echo "slurm_scan: FAIL: sbatch --wait exited $rc"; cat "$tmp/sbatch.out" "$tmp"/task-*.out 2>/dev/null | tail -n 30; exit 1
fi
shards=("$tmp"/shards/shard-*-of-$n.db)
((${#shards[@]} == n)) || { echo "slurm_scan: FAIL: ${#shards[@]} shard databases, want $n"; ls -R "$tmp"; exit 1; }
"$KDET" merge "$tmp/merged.db" "${shards[@]}" --json "$tmp/merged.json" -q || true
"$KDET" scan "$tmp/m.toml" --db "$tmp/whole.db" --json "$tmp/whole.json" -q || true
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def view(path):
    out = {}
    for j in json.load(open(path))["jobs"]:
        stable = j["status"] != "varies"
        out[j["id"]] = (j["status"], j["done"], j["runs"] if stable else None, j["variants"][0]["id"] if stable else None)
    return out
whole, merged = view(f"{tmp}/whole.json"), view(f"{tmp}/merged.json")
diff = [k for k in set(whole) | set(merged) if whole.get(k) != merged.get(k)]
if diff:
    print(f"slurm_scan: FAIL: {len(diff)} of {len(whole)} jobs differ, e.g. {whole.get(diff[0])} vs {merged.get(diff[0])}")
    sys.exit(1)
varying = sum(v[0] == "varies" for v in whole.values())
print(f"slurm_scan: {len(whole)} jobs over a 3-task Slurm array, merged == single-machine scan ({varying} vary)")
PY
