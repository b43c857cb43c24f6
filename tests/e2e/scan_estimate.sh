#!/usr/bin/env bash
# tier: quick
# scan_estimate.sh: before its first run, kdet scan says how many runs it plans at most and what
# they will cost, from each compiler's first job timed by the probes that choose its levels
# (a replay of a large capture at the default budget is CPU-days, said before it starts). The
# fake libNVVM's slow mode (20 ms a compile) gives the figure a floor: the estimate is the
# planned runs times the timed run, and --max-runs changes both. With unnamed = "natural"
# nothing is timed before the runs, and the line says so.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
manifest() { # MAX_RUNS [UNNAMED]
  {
    printf 'name = "est"\ninputs = ["%s/nvvm/llvm7/*.ll"]\n[option_sets]\nO3 = ["-opt=3"]\n' "$EX"
    nvvm_compiler slow slow
    printf '[setting]\nseed = 1\nunnamed = "%s"\n[budget]\nmax_runs = %s\nfirst_round = 8\n' "${2:-vary}" "$1"
  } >"$T/m.toml"
}
n_inputs=$(ls "$EX"/nvvm/llvm7/*.ll | wc -l)

manifest 30
set +e
"$KDET" scan "$T/m.toml" --db "$T/a.db" --jobs 2 --color never >"$T/a.out" 2>"$T/a.err"
rc=$?
set -e
expect_eq "scan exit" "$rc" 0
planned=$((n_inputs * 30))
grep -q "^kdet scan: at most $planned runs planned" "$T/a.err" || { cat "$T/a.err"; fail "no planned-runs line"; }
line=$(grep '^kdet scan: estimate: ' "$T/a.err") || { cat "$T/a.err"; fail "no estimate line"; }
echo "$line"
# "estimate: X of slot time at Y a run (each compiler's first job timed), about Z on 2 slots"
python3 - "$line" "$planned" <<'PY' || fail "the estimate is not the planned runs times the timed run"
import re, sys
line, planned = sys.argv[1], int(sys.argv[2])
def secs(t):
    t = t.strip()
    m = re.fullmatch(r"(\d+) h (\d+) min", t)
    if m: return int(m[1]) * 3600 + int(m[2]) * 60
    m = re.fullmatch(r"(\d+) min (\d+) s", t)
    if m: return int(m[1]) * 60 + int(m[2])
    m = re.fullmatch(r"([\d.]+) (s|ms|us)", t)
    return float(m[1]) * {"s": 1, "ms": 1e-3, "us": 1e-6}[m[2]]
m = re.match(r"kdet scan: estimate: (.+) of slot time at (.+) a run \(each compiler's first job timed\), about (.+) on 2 slots$", line)
assert m, line
total, per_run, wall = secs(m[1]), secs(m[2]), secs(m[3])
assert per_run >= 0.020, per_run                         # the fake sleeps 20 ms a compile
assert abs(total - planned * per_run) <= 0.02 * total + 0.01 * planned, (total, planned, per_run)
assert abs(wall - total / 2) <= 0.02 * total + 0.5, (wall, total)
PY

# --max-runs sizes both before the start.
rm -f "$T"/a.db*
set +e
"$KDET" scan "$T/m.toml" --db "$T/b.db" --jobs 2 --max-runs 5 --color never >/dev/null 2>"$T/b.err"
set -e
grep -q "^kdet scan: at most $((n_inputs * 5)) runs planned" "$T/b.err" || { cat "$T/b.err"; fail "--max-runs: planned runs"; }
grep -q '^kdet scan: estimate: .* of slot time at ' "$T/b.err" || fail "--max-runs: no estimate"

# Nothing timed before the runs: said, not guessed.
manifest 10 natural
set +e
"$KDET" scan "$T/m.toml" --db "$T/c.db" --jobs 2 --color never >/dev/null 2>"$T/c.err"
set -e
grep -q '^kdet scan: estimate: none before the first runs' "$T/c.err" || { cat "$T/c.err"; fail "untimed: no 'none before the first runs'"; }
echo "scan_estimate: PASS"
