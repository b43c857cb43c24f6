#!/usr/bin/env bash
# tier: slow
# scan_shard_merge.sh: `kdet scan --shard I/3` for I = 1..3 partitions the jobs,
# and `kdet merge` of the three databases equals one whole scan: the same job
# ids, the same status per job, and for deterministic and failing jobs the same
# runs and outputs (varying jobs stop at a random run, so only their verdict
# is compared). Merging is idempotent (merging a shard twice changes nothing).
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
{
  printf 'name = "shards"\ninputs = ["%s/nvvm/llvm7/*.ll", "%s/nvvm/modern/*.ll"]\n' "$EX" "$EX"
  printf 'targets = ["80", "90a", "100a"]\n[option_sets]\nO0 = ["-opt=0"]\nO3 = ["-opt=3"]\n'
  nvvm_compiler echo; nvvm_compiler heap heaporder; nvvm_compiler fail fail
  printf '[budget]\ntarget_rate = 0.1\n'
} >"$T/m.toml"
"$KDET" scan "$T/m.toml" --db "$T/whole.db" --json "$T/whole.json" -q || true
for i in 1 2 3; do "$KDET" scan "$T/m.toml" --db "$T/s$i.db" --shard $i/3 -q || true; done
"$KDET" merge "$T/merged.db" "$T/s1.db" "$T/s2.db" "$T/s3.db" --json "$T/merged.json" -q || true
"$KDET" merge "$T/merged.db" "$T/s2.db" --json "$T/again.json" -q || true
python3 - "$T" <<'PY'
import json, sqlite3, sys
tmp = sys.argv[1]
def view(path):
    d = json.load(open(path))
    out = {}
    for j in d["jobs"]:
        stable = j["status"] in ("deterministic", "failed")
        out[j["id"]] = (j["status"], j["runs"] if stable else None,
                        j["variants"][0]["id"] if stable else None)
    return out
whole, merged, again = view(f"{tmp}/whole.json"), view(f"{tmp}/merged.json"), view(f"{tmp}/again.json")
shard_ids = []
for i in (1, 2, 3):
    c = sqlite3.connect(f"{tmp}/s{i}.db")
    shard_ids.append({r[0] for r in c.execute("select id from jobs")})
errors = []
if sum(len(s) for s in shard_ids) != len(whole) or set().union(*shard_ids) != set(whole):
    errors.append(f"shards hold {[len(s) for s in shard_ids]} jobs; the whole scan {len(whole)}")
if any(len(s) == 0 for s in shard_ids):
    errors.append("a shard is empty")
diff = [k for k in whole if whole[k] != merged.get(k)]
if diff or set(merged) != set(whole):
    errors.append(f"{len(diff)} jobs differ between merged and whole, e.g. {diff[:1]}: "
                  f"{[whole.get(k) for k in diff[:1]]} vs {[merged.get(k) for k in diff[:1]]}")
if again != merged:
    errors.append("merging a shard a second time changed the result")
runs = lambda p: sqlite3.connect(p).execute("select count(*) from runs").fetchone()[0]
if runs(f"{tmp}/merged.db") != sum(runs(f"{tmp}/s{i}.db") for i in (1, 2, 3)):
    errors.append("merged run count is not the sum of the shards'")
statuses = sorted({v[0] for v in whole.values()})
if statuses != ["deterministic", "failed", "nondeterministic"]:
    errors.append(f"the corpus should give deterministic, failed and varying jobs; got {statuses}")
if errors:
    print("scan_shard_merge: FAIL: " + "; ".join(errors)); sys.exit(1)
print(f"scan_shard_merge: {len(whole)} jobs in shards of {[len(s) for s in shard_ids]}; merged == whole ({statuses})")
PY
