#!/usr/bin/env bash
# tier: quick
# scan_trace.sh: `kdet scan --trace FILE` writes every stored run, and nothing else, as Chrome
# trace events: one per row of the runs table (same job and index), on lanes where no two runs
# overlap and no more lanes than slots, each inside the scan's "runs" phase, with its worker
# wait and compile inside the run. Without --jobs, one slot per CPU kdet may use (taskset
# counts). An interrupted scan still writes the runs it stored. A bad
# --trace path, or --trace with --report, is refused before anything runs.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd python3 "for sqlite3 and JSON queries"

# manifest PROCESS HISTORY MAX_RUNS: the four llvm7 examples at two option sets on the fake
# libNVVM in slow mode (20 ms a compile), so runs and worker starts overlap on two slots.
manifest() {
  printf 'name = "trace"\ninputs = ["%s/nvvm/llvm7/*.ll"]\n' "$EX"
  nvvm_compiler fake slow
  printf '[option_sets]\nO0 = ["-opt=0"]\nO3 = ["-opt=3"]\n'
  printf '[setting]\nprocess = "%s"\nhistory = %s\nseed = 5\n' "$1" "$2"
  printf '[budget]\nmax_runs = %s\nfirst_round = 4\n' "$3"
}

# check_trace TRACE DB SLOTS: the trace holds exactly DB's runs, laid out as promised.
check_trace() {
  python3 - "$1" "$2" "$3" <<'EOF' || fail "trace $1 (above)"
import collections, json, sqlite3, sys
trace, db, slots = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(trace))
ev = doc["traceEvents"]
assert doc["otherData"]["schema"] == "kdet.scan-trace/1", doc["otherData"]
assert doc["otherData"]["slots"] == slots, doc["otherData"]
runs = [e for e in ev if e.get("cat") == "run"]
stored = sorted(sqlite3.connect(db).execute("select job_id, idx from runs"))
traced = sorted((e["args"]["job"], e["args"]["run"]) for e in runs)
assert traced == stored, f"{len(traced)} runs traced, {len(stored)} stored; first differing: " \
    f"{next(((a, b) for a, b in zip(traced, stored) if a != b), None)}"
assert doc["otherData"]["runs"] == len(stored)
phases = [e for e in ev if e.get("cat") == "phase"]
names = [p["name"] for p in phases]
assert names[:2] == ["manifest, plan, database", "runs"], names
for a, b in zip(phases, phases[1:]):
    assert abs(a["ts"] + a["dur"] - b["ts"]) <= 1, f"phases not back to back: {a} {b}"
r0, r1 = phases[1]["ts"], phases[1]["ts"] + phases[1]["dur"]
lanes = collections.defaultdict(list)
for e in ev:
    if e.get("cat") in ("run", "probe"):
        lanes[e["tid"]].append((e["ts"], e["ts"] + e["dur"], e))
        assert r0 - 1 <= e["ts"] and e["ts"] + e["dur"] <= r1 + 1, f"outside the runs phase: {e}"
assert 1 <= len(lanes) <= slots, f"{len(lanes)} lanes for {slots} slots"
for tid, spans in lanes.items():
    spans.sort(key=lambda s: s[0])
    for (a0, a1, a), (b0, b1, b) in zip(spans, spans[1:]):
        assert a1 <= b0, f"lane {tid}: {a} overlaps {b}"
parts = collections.defaultdict(list)
for e in ev:
    if e.get("cat") in ("setup", "compile"):
        parts[(e["tid"], e["cat"])].append(e)
for e in runs:
    a = e["args"]
    assert a["compile_ms"] >= 20 * 0.9, f"slow mode compiles 20 ms: {e}"
    assert a["compile_cpu_ms"] >= 0, f"no compile CPU: {e}"
    assert (a["setup_ms"] + a["compile_ms"]) * 1e3 <= e["dur"] + 2, f"parts outlast the run: {e}"
    inner = [p for p in parts[(e["tid"], "compile")] if e["ts"] <= p["ts"] <= e["ts"] + e["dur"]]
    assert len(inner) == 1, f"{len(inner)} compile slices inside {e}"
print(f"{len(runs)} runs on {len(lanes)} lanes, {sum(e.get('cat') == 'probe' for e in ev)} probes")
EOF
}

for c in "both 2 12 2" "same 0 8 2" "fresh 0 8 1"; do
  read -r process history runs jobs <<<"$c"
  manifest "$process" "$history" "$runs" >"$T/$process.toml"
  timeout 120 "$KDET" scan "$T/$process.toml" --db "$T/$process.db" --jobs "$jobs" \
    --trace "$T/$process.json" -q && rc=0 || rc=$?
  ((rc == 0)) || fail "$process: scan exited $rc"
  echo "scan_trace: $process, history $history, --jobs $jobs: $(check_trace "$T/$process.json" "$T/$process.db" "$jobs")"
done

# Without --jobs, one slot per CPU kdet may use: pinned to one CPU (taskset), one slot, not one
# per CPU of the machine.
if command -v taskset >/dev/null; then
  cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
  timeout 120 taskset -c "$cpu" "$KDET" scan "$T/same.toml" --db "$T/pinned.db" \
    --trace "$T/pinned.json" -q || fail "pinned scan failed"
  slots=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["otherData"]["slots"])' \
    "$T/pinned.json")
  expect_eq "slots of a scan pinned to CPU $cpu" "$slots" 1
  echo "scan_trace: pinned to one CPU, no --jobs: 1 slot"
else
  echo "scan_trace: SKIP the pinned scan: no taskset here"
fi

# Interrupted: the trace still holds every run the database kept, and only those.
manifest both 2 4000 >"$T/long.toml"
"$KDET" scan "$T/long.toml" --db "$T/long.db" --jobs 2 --trace "$T/long.json" -q &
stop_scan_at $! "$T/long.db" 30 INT
expect_eq "interrupted scan's exit" "$rc" 130
echo "scan_trace: interrupted: $(check_trace "$T/long.json" "$T/long.db" 2)"

# Refused before anything runs: a folder, a missing parent, and --trace with --report.
mkdir "$T/dir"
expect_exit 2 "$KDET" scan "$T/both.toml" --db "$T/never.db" --trace "$T/dir" -q
expect_output -- "--trace"
expect_exit 2 "$KDET" scan "$T/both.toml" --db "$T/never.db" --trace "$T/no/such/t.json" -q
expect_output -- "--trace"
[[ ! -e $T/never.db ]] || fail "a refused --trace left a database behind"
expect_exit 2 "$KDET" scan --report "$T/both.db" --trace "$T/r.json"
expect_output -- "--trace"
[[ ! -e $T/r.json ]] || fail "--trace with --report wrote a file"
echo "scan_trace: bad --trace paths and --trace with --report are refused"
