#!/usr/bin/env bash
# tier: slow
# slurm_scan.sh: a scan run as a Slurm job array on a private one-node Slurm
# (scripts/slurm/run-local.sh: munged, slurmctld, slurmd on localhost), each
# task one --shard of scripts/slurm/kdet-scan.sbatch, then `kdet merge`; the
# merged result must equal a single-machine scan of the same manifest (same
# job ids and statuses; same runs and outputs for non-varying jobs).
# Time-boxed: the daemons get 30 s to come up, the array 180 s.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped
# (Slurm or munge absent, not root, or the daemons cannot start here).
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
KDET=$(realpath "$KDET")
src=$(realpath "$KDET_SOURCE_DIR")
need_fakes libfakenvvm.so
for p in munged slurmctld slurmd sbatch; do
  command -v $p >/dev/null || skip "$p not installed (apt-get install -y slurm-wlm munge)"
done
((EUID == 0)) || skip "a private slurmd needs root"
on_exit 'bash "$src/scripts/slurm/run-local.sh" stop "$T/slurm" >/dev/null 2>&1'
if ! out=$(timeout 60 bash "$src/scripts/slurm/run-local.sh" start "$T/slurm" 2>&1); then
  echo "slurm_scan: SKIP: a one-node Slurm cannot start here:"; echo "$out" | tail -n 20; exit 77
fi
eval "$(echo "$out" | grep '^export SLURM_CONF=')"
{
  printf 'name = "slurm"\ninputs = ["%s/nvvm/llvm7/*.ll", "%s/nvvm/modern/*.ll"]\n' "$EX" "$EX"
  printf 'targets = ["80", "90a"]\n[option_sets]\nO0 = ["-opt=0"]\nO3 = ["-opt=3"]\n'
  nvvm_compiler echo; nvvm_compiler heap heaporder
  printf '[budget]\ntarget_rate = 0.1\n'
} >"$T/m.toml"
n=3
export KDET
timeout 180 sbatch --wait --array=1-$n --output="$T/task-%a.out" --chdir="$T" \
  "$src/scripts/slurm/kdet-scan.sbatch" "$T/m.toml" "$T/shards" >"$T/sbatch.out" 2>&1 && rc=0 || rc=$?
if ((rc != 0)); then
  echo "slurm_scan: FAIL: sbatch --wait exited $rc"; cat "$T/sbatch.out" "$T"/task-*.out 2>/dev/null | tail -n 30; exit 1
fi
shards=("$T"/shards/shard-*-of-$n.db)
((${#shards[@]} == n)) || { echo "slurm_scan: FAIL: ${#shards[@]} shard databases, want $n"; ls -R "$T"; exit 1; }
"$KDET" merge "$T/merged.db" "${shards[@]}" --json "$T/merged.json" -q || true
"$KDET" scan "$T/m.toml" --db "$T/whole.db" --json "$T/whole.json" -q || true
python3 - "$T" <<'PY'
import json, sys
tmp = sys.argv[1]
def view(path):
    out = {}
    for j in json.load(open(path))["jobs"]:
        stable = j["status"] != "nondeterministic"
        out[j["id"]] = (j["status"], j["done"], j["runs"] if stable else None, j["variants"][0]["id"] if stable else None)
    return out
whole, merged = view(f"{tmp}/whole.json"), view(f"{tmp}/merged.json")
diff = [k for k in set(whole) | set(merged) if whole.get(k) != merged.get(k)]
if diff:
    print(f"slurm_scan: FAIL: {len(diff)} of {len(whole)} jobs differ, e.g. {whole.get(diff[0])} vs {merged.get(diff[0])}")
    sys.exit(1)
varying = sum(v[0] == "nondeterministic" for v in whole.values())
print(f"slurm_scan: {len(whole)} jobs over a 3-task Slurm array, merged == single-machine scan ({varying} vary)")
PY
