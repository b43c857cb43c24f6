#!/usr/bin/env bash
# Same seeds, same outcomes: runs one set of kdet commands with two kdet binaries (before and after
# a change of the run loop) and compares what they decided, run by run. Each case fixes every factor
# that is not a function of the seed (ASLR off, the chaos heap reseeded per run), so each run's
# outcome depends only on its index and the seed; scan and explain are compared by their verdicts,
# job statuses and conclusions.
# With ASLR off the heap starts after the executable's image, so any two kdet builds of different
# sizes gave an address-following compiler other addresses, and other outputs run by run. Since
# kdet moves its heap start to a 64 MiB boundary with ASLR off (src/kdet/main.cpp), two builds
# that both do so are compared run by run, real libNVVM included; a build from before that is not
# comparable run by run with one after it (build the old source with today's src/kdet/main.cpp).
# Usage: bench/same_outcomes.sh OLD_KDET NEW_KDET FAKES_DIR
# Prints one line per case (same / DIFFERENT, and what) and exits 1 when any case differs.
set -uo pipefail
# Absolute: the scan case runs from a temp folder.
old=$(realpath "${1:?old kdet}")
new=$(realpath "${2:?new kdet}")
fakes=$(realpath "${3:?fakes dir}")
root=$(cd "$(dirname "$0")/.." && pwd)
ex=$root/examples
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nvvm_real=${KDET_NVVM_LIB:-/usr/local/cuda/lib/libnvvm.so}
differ=0

# per_run JSON: one line per run (index, status, variant, process regime, nth in its worker).
per_run() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("verdict", d["verdict"], "variants", len(d["variants"]))
for r in d["records"]:
    print(r["run"], r["status"], r["variant"], r.get("regime"), r["nth_in_worker"])
' "$1" 2>/dev/null
}
# compare NAME ARGS...: `kdet run ARGS --json` with both binaries, run by run.
compare() {
  local name=$1
  shift
  rm -f "$T/old.json" "$T/new.json"
  "$old" run --json "$T/old.json" -q "$@" >/dev/null 2>&1
  local rc_old=$?
  "$new" run --json "$T/new.json" -q "$@" >/dev/null 2>&1
  local rc_new=$?
  if [[ $rc_old != "$rc_new" ]]; then
    echo "DIFFERENT $name: exit $rc_old before, $rc_new after"
    differ=1
  elif ! diff <(per_run "$T/old.json") <(per_run "$T/new.json") >"$T/diff"; then
    echo "DIFFERENT $name:"
    head -5 "$T/diff"
    differ=1
  else
    echo "same      $name: exit $rc_new, $(per_run "$T/new.json" | head -1), $(($(per_run "$T/new.json" | wc -l) - 1)) runs"
  fi
}

fixed=(--aslr off --heap chaos --threads 0 --unnamed natural --seed 5)
fake=(--lib "$fakes/libfakenvvm.so")
saxpy=$ex/nvvm/llvm7/saxpy.ll
for p in fresh same both; do
  compare "fake heaporder, --process $p, -j1" "$saxpy" "${fake[@]}" "${fixed[@]}" --process "$p" -n 24 -j 1 -- -fake-mode=heaporder
done
compare "fake heaporder, --process fresh, -j2" "$saxpy" "${fake[@]}" "${fixed[@]}" --process fresh -n 24 -j 2 -- -fake-mode=heaporder
compare "fake crash, --process same" "$saxpy" "${fake[@]}" "${fixed[@]}" --process same -n 6 -- -fake-mode=crash
compare "fake hang, --timeout 0.3" "$saxpy" "${fake[@]}" "${fixed[@]}" --process same -n 3 --timeout 0.3 -- -fake-mode=hang
compare "fake_cc echo (exec)" "$saxpy" --cmd "$fakes/fake_cc echo {input} {output}" --output-ext ptx \
  --aslr off --unnamed natural --seed 5 -n 8 -j 2
if [[ -e $nvvm_real ]]; then
  real=$root/tests/data/nvvm_real/gen_1473.ll
  compare "real libNVVM 13.0 gen_1473 -opt=3, chaos heap, fresh" "$real" --lib "$nvvm_real" "${fixed[@]}" \
    --process fresh -n 24 -j 2 -- -arch=compute_80 -opt=3
  compare "real libNVVM 13.0 gen_1473 -opt=3, chaos heap, same" "$real" --lib "$nvvm_real" "${fixed[@]}" \
    --process same -n 12 -j 1 -- -arch=compute_80 -opt=3
fi

# explain: the conclusion and the factors it names.
conclusion() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("verdict"), d.get("conclusion", {}).get("kind") if isinstance(d.get("conclusion"), dict) else d.get("conclusion"),
      sorted(c["factor"] for c in d.get("causes", []) if isinstance(c, dict) and "factor" in c))
' "$1"
}
"$old" explain "$saxpy" "${fake[@]}" --seed 5 -n 30 --json "$T/explain-old.json" -- -fake-mode=heaporder >/dev/null 2>&1
"$new" explain "$saxpy" "${fake[@]}" --seed 5 -n 30 --json "$T/explain-new.json" -- -fake-mode=heaporder >/dev/null 2>&1
a=$(conclusion "$T/explain-old.json") b=$(conclusion "$T/explain-new.json")
if [[ $a == "$b" ]]; then echo "same      explain fake heaporder: $b"; else echo "DIFFERENT explain: $a / $b"; differ=1; fi

# scan: every job's status and variant count.
cp "$ex"/nvvm/llvm7/*.ll "$T/"
{
  echo 'inputs = ["*.ll"]'
  printf '[[compiler]]\nname = "fake"\nbackend = "nvvm"\nlib = "%s"\noptions = ["-fake-mode=heaporder"]\n' "$fakes/libfakenvvm.so"
  printf '[budget]\nmax_runs = 16\n[setting]\naslr = "off"\nheap = "chaos"\nthreads = 0\nunnamed = "natural"\nseed = 5\n'
} >"$T/m.toml"
jobs_of() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for j in sorted(d["jobs"], key=lambda j: j["input"]):
    print(j["input"], j["status"], j.get("runs"), len(j.get("variants", [])))
' "$1"
}
(cd "$T" && "$old" scan m.toml --db old.db --json old-scan.json -q >/dev/null 2>&1)
(cd "$T" && "$new" scan m.toml --db new.db --json new-scan.json -q >/dev/null 2>&1)
if [[ ! -s $T/old-scan.json || ! -s $T/new-scan.json ]]; then
  echo "DIFFERENT scan: a binary wrote no scan JSON (old: $(test -s "$T/old-scan.json" && echo yes || echo no), new: $(test -s "$T/new-scan.json" && echo yes || echo no))"
  differ=1
elif diff <(jobs_of "$T/old-scan.json") <(jobs_of "$T/new-scan.json") >"$T/diff"; then
  echo "same      scan of $(jobs_of "$T/new-scan.json" | wc -l) jobs (fake heaporder): $(jobs_of "$T/new-scan.json" | awk '{print $2}' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
else
  echo "DIFFERENT scan:"
  cat "$T/diff"
  differ=1
fi
exit $differ
