#!/usr/bin/env bash
# tier: quick
# compare --settle and --stress re-run B's jobs from the manifest stored in B's database. A
# manifest names its inputs relative to its own folder: they resolve from there, whatever folder
# the scan or the compare ran in.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd sqlite3 "the sqlite3 shell"
mkdir -p "$T/proj/kernels" "$T/elsewhere"
cp "$EX/nvvm/llvm7/saxpy.ll" "$T/proj/kernels/"
{ echo 'inputs = ["kernels/*.ll"]'; nvvm_compiler nvvm heaporder; } >"$T/proj/a.toml"
{ echo 'inputs = ["kernels/*.ll"]'; nvvm_compiler nvvm echo; printf '[budget]\ntarget_rate = 0.1\n'; } \
  >"$T/proj/b.toml"
# The scans run in the manifests' folder and name them relatively, as a user at a shell does.
(cd "$T/proj" && { "$KDET" scan a.toml --db a.db -q || true; } && "$KDET" scan b.toml --db b.db -q) \
  || fail "B's scan failed"
cd "$T/elsewhere"
"$KDET" compare ../proj/a.db ../proj/b.db --settle --stress --json s.json >s.txt 2>s.err \
  && rc=0 || rc=$?
cat s.err >&2
expect_eq "compare --settle --stress from another folder: exit" "$rc" 0
stress=$(python3 -c 'import json; d=json.load(open("s.json")); p=d["pairs"][0]; print(p["settle_runs"] > 0, p.get("stress", {}).get("outcome"))')
if [[ ${KDET_SANITIZER:-} == *ASan* ]]; then
  # The chaos allocator, one of --stress's regimes, does not mix with an ASan-built worker (the
  # two allocators free each other's blocks): under that regime a worker crashes, at its start
  # ("chaos: cannot load the nvvm compiler") or in a run ("chaos: 1 of 8 runs failed", a
  # SIGSEGV), so the stress is inconclusive there, and says so. What this test is about, that
  # B's job is found and re-run from another folder, holds all the same.
  expect_eq "B's job re-ran (ASan: the chaos regime crashes)" "$stress" "True inconclusive"
  python3 -c 'import json,re,sys; d=json.load(open("s.json")); r=d["pairs"][0]["stress"].get("reason",""); sys.exit(0 if re.match(r"chaos: (cannot load|[0-9]+ of [0-9]+ runs failed)", r) else 1)' ||
    fail "ASan: the stress is inconclusive for another reason than the chaos regime"
else
  expect_eq "B's job re-ran: settle runs, a stress outcome" "$stress" "True fixed under stress"
fi
if grep -q "kernels/saxpy.ll" s.err; then fail "an input was looked for in the wrong folder"; fi
# A database made before the manifest path was stored absolute holds it as given ("b.toml"):
# it is looked for beside the database, so the compare still runs from another folder.
sqlite3 ../proj/b.db "UPDATE meta SET value='b.toml' WHERE key='manifest'"
"$KDET" compare ../proj/a.db ../proj/b.db --settle --json r.json >r.txt 2>r.err && rc=0 || rc=$?
cat r.err >&2
expect_eq "compare --settle of a database with a relative manifest path: exit" "$rc" 0
expect_eq "B's job re-ran from the stored relative path" \
  "$(python3 -c 'import json; d=json.load(open("r.json")); print(d["pairs"][0]["settle_runs"] > 0)')" True
echo OK
