#!/usr/bin/env bash
# tier: quick
# bad_inputs.sh: adversarial numbers and names across commands. Every bad
# number must give exit 2 with a message naming the option (or FILE:LINE) and
# the valid range: never exit 70, never a hang (each call runs under
# `timeout`), never a silent default. Names, options and environment values
# that are not UTF-8 must never give exit 70, and the JSON, JUnit and HTML
# written for them must parse.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
set +e # every try is counted and the summary decides, so a failure does not stop the test
need_fakes libfakenvvm.so
need_cmd python3 "to parse JSON and XML"
lib=$FAKES/libfakenvvm.so
in=$(ls "$EX"/nvvm/llvm7/*.ll | head -1)
cp "$in" "$T/k.ll"

tried=0 clean=0 fails=0 crashes=0 hangs=0 e70=0
fail() { echo "bad_inputs: FAIL: $*"; fails=$((fails + 1)); } # counts instead of exiting

# expect_usage WANT_IN_MESSAGE -- ARGS...: exit 2 and the message holds WANT.
expect_usage() {
  local want=$1
  shift 2
  tried=$((tried + 1))
  timeout 20 "$KDET" "$@" >"$T/out" 2>"$T/err" </dev/null
  local rc=$?
  case $rc in
  2) if grep -qF -- "$want" "$T/err"; then clean=$((clean + 1)); else fail "kdet $*: exit 2 but the message does not name '$want': $(head -c 300 "$T/err")"; fi ;;
  124) hangs=$((hangs + 1)); fail "kdet $*: still running after 20 s" ;;
  70) e70=$((e70 + 1)); fail "kdet $*: exit 70: $(head -c 300 "$T/err")" ;;
  *) ((rc > 128)) && crashes=$((crashes + 1)); fail "kdet $*: exit $rc, want 2: $(head -c 300 "$T/err")" ;;
  esac
}

run=(run "$T/k.ll" --lib "$lib" -q)
for v in -1 0 4294967296 18446744073709551616 1.5 1e3 nan inf " 3" 0x10 ""; do
  expect_usage "--runs" -- "${run[@]}" -n "$v"
done
for v in 0 1e-300 nan inf -0.1 0.9 1 abc 1e400; do
  expect_usage "--max-rate" -- "${run[@]}" --max-rate "$v"
done
for v in 0.0005 -1 nan inf -inf 1e7 1e400 1s; do
  expect_usage "--timeout" -- "${run[@]}" --timeout "$v"
  expect_usage "--timeout" -- exec --deterministic --timeout "$v" -- true
done
for v in 0 -5 1025 2.5 nan; do
  expect_usage "--jobs" -- "${run[@]}" -j "$v"
  expect_usage "--jobs" -- explain "$T/k.ll" --lib "$lib" -j "$v"
  expect_usage "--jobs" -- scan "$T/none.toml" --db "$T/x.db" -j "$v"
done
for v in -1 257 1.5 nan; do
  expect_usage "--threads" -- "${run[@]}" --threads "$v"
done
for v in -1 0 1 1.5 nan 99999999999999999999; do
  expect_usage "--runs" -- explain "$T/k.ll" --lib "$lib" -n "$v"
  expect_usage "--min-cell-runs" -- explain "$T/k.ll" --lib "$lib" --min-cell-runs "$v"
  expect_usage "--max-cell-runs" -- explain "$T/k.ll" --lib "$lib" --max-cell-runs "$v"
done
for v in -1 0 1.5 nan 1000001; do
  expect_usage "--count" -- corpus -o "$T/corpus" -n "$v"
done
for v in 16777216T 99999999999999999999 -1 1.5G nan; do
  expect_usage "--max-size" -- cache gc --dir "$T/cache" --max-size "$v"
done
# 0 is valid: a staging folder whose writer still holds its lock is never removed.
for v in -1 -0.5 nan inf 1e30; do
  expect_usage "--staging-age" -- cache gc --dir "$T/cache" --max-size 1G --staging-age "$v"
done
for v in 0.0005 -1 nan; do
  expect_usage "--timeout" -- cc "$T/k.ll" -o "$T/o" --timeout "$v" -- cp {input} {output}
done
for v in 2 -1 nan 1.5; do
  expect_usage "--verify-rate" -- cache compile "$T/k.ll" --lib "$lib" --verify-rate "$v"
done
expect_usage "--cmd" -- run "$T/k.ll" --cmd ""
expect_usage "--cmd" -- run "$T/k.ll" --cmd "   "
expect_usage "--shard" -- scan "$T/none.toml" --db "$T/x.db" --shard 0/4
expect_usage "--seed" -- "${run[@]}" --seed -1
expect_usage "--seed" -- corpus -o "$T/corpus" -n 1 --seed 99999999999999999999

# Manifest values: FILE:LINE and the range.
manifest() {
  cat >"$T/m.toml" <<TOML
inputs = ["k.ll"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[budget]
$1
TOML
}
for kv in "max_runs = nan" "max_runs = 1.5" "max_runs = -1" "max_runs = inf" "max_runs = 1e30" \
  "target_rate = nan" "target_rate = 0" "target_rate = 1e-300" "target_rate = 2" "first_round = 0" \
  "first_round = 2.5" "max_round = -inf" "timeout = 0.0005" "timeout = nan" "timeout = -1"; do
  manifest "$kv"
  expect_usage "m.toml:7: budget.${kv%% *}" -- scan "$T/m.toml" --db "$T/m.db" -q
done
for kv in "history = -1" "history = 2.5" "history = 1e9" 'history = "8"' "threads = 1.5" \
  "threads = -1" "threads = 257" "threads = nan" 'threads = "2"'; do
  manifest "" && sed -i "s/^\[budget\]\$/[setting]\n$kv/" "$T/m.toml"
  expect_usage "m.toml:7: setting.${kv%% *}" -- scan "$T/m.toml" --db "$T/m.db" -q
done
# TOML nested past what toml++ recurses through (it crashed kdet with SIGSEGV): a dotted key or
# a [table] header of 60,000 parts, in a manifest and in a recipe.
deep=$(printf 'a.%.0s' $(seq 1 60000))a
manifest "" && printf '%s = 1\n' "$deep" >>"$T/m.toml"
expect_usage "m.toml:8: nested 60003 deep" -- scan "$T/m.toml" --db "$T/m.db" -q
manifest "" && printf '[%s]\n' "$deep" >>"$T/m.toml"
expect_usage "m.toml:8: nested 120002 deep" -- scan "$T/m.toml" --db "$T/m.db" -q
printf 'kernel = "k"\n%s = 1\n' "$deep" >"$T/r.toml"
expect_usage "r.toml:2: nested 60001 deep" -- impact "$T/k.ll" "$T/k.ll" --run --recipe "$T/r.toml"
# A brace bomb is refused at once.
bomb=$(printf '{a,b}%.0s' $(seq 1 22))
printf 'inputs = ["k%s.ll"]\n[[compiler]]\nname = "fake"\nbackend = "nvvm"\nlib = "%s"\n' "$bomb" "$lib" >"$T/m.toml"
expect_usage "m.toml:1: input" -- scan "$T/m.toml" --db "$T/m.db" -q

# Names, options and env values that are not UTF-8: never exit 70; JSON and XML parse.
latin="$T/caf$(printf '\xe9')"
cp "$in" "$latin.ll"
opt="-DX=$(printf '\xe9\x01')"
utf_tried=0 utf_ok=0
check_rc() { # NAME RC ALLOWED...
  local name=$1 rc=$2
  shift 2
  utf_tried=$((utf_tried + 1))
  for a in "$@"; do [[ $rc == "$a" ]] && { utf_ok=$((utf_ok + 1)); return; }; done
  ((rc == 70)) && e70=$((e70 + 1))
  fail "$name: exit $rc, want one of $*: $(head -c 300 "$T/err")"
}
check_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1" 2>"$T/perr" || fail "$1 is not valid JSON: $(cat "$T/perr")"; }
check_xml() { python3 -c 'import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])' "$1" 2>"$T/perr" || fail "$1 is not valid XML: $(cat "$T/perr")"; }

timeout 60 "$KDET" run "$latin.ll" --lib "$lib" -n 3 -q --json "$T/r.json" --env "V=$(printf '\xff')" -- "$opt" 2>"$T/err"
check_rc "run --json" $? 0 1 3
check_json "$T/r.json"
grep -q 'café' "$T/r.json" || fail "run --json does not show the Latin-1 name as café"
timeout 120 "$KDET" explain "$latin.ll" --lib "$lib" -n 4 --min-cell-runs 2 --max-cell-runs 4 --factors heap \
  --json "$T/e.json" -- "$opt" >/dev/null 2>"$T/err"
check_rc "explain --json" $? 0 1 3
check_json "$T/e.json"
# TOML is UTF-8 by definition: the Latin-1 name comes from the glob, a control character from \u0001.
cat >"$T/s.toml" <<TOML
name = "caf\\u00e9 <&>"
inputs = ["caf*.ll"]
[option_sets]
odd = ["-DX=\\u0001<"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$lib"
[budget]
max_runs = 4
TOML
timeout 120 "$KDET" scan "$T/s.toml" --db "$T/s.db" -q --json "$T/s.json" --junit "$T/s.xml" \
  --report-html "$T/s.html" 2>"$T/err"
check_rc "scan --json --junit --report-html" $? 0 1 3
check_json "$T/s.json"
check_xml "$T/s.xml"
python3 -c 'import re,sys; t=open(sys.argv[1],"rb").read().decode("utf-8"); sys.exit(1 if re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", t) else 0)' \
  "$T/s.html" 2>"$T/perr" || fail "scan --report-html is not UTF-8 or holds control characters: $(tail -1 "$T/perr")"
grep -q 'café' "$T/s.json" || fail "scan --json does not show the Latin-1 input name as café"
timeout 60 "$KDET" cache compile "$latin.ll" --lib "$lib" --dir "$T/cache" -q -o "$T/c.out" --json "$T/c.json" \
  -- "$opt" 2>"$T/err"
check_rc "cache compile --json" $? 0 3
check_json "$T/c.json"
V=$(printf '\xe9') timeout 60 "$KDET" cache compile "$latin.ll" --lib "$lib" --dir "$T/cache" -q -o "$T/c2.out" \
  --key-env V --json "$T/c2.json" 2>"$T/err"
check_rc "cache compile with a Latin-1 --key-env value" $? 0
check_json "$T/c2.json"
for sub in "stats" "report"; do
  timeout 60 "$KDET" cache $sub --dir "$T/cache" --json "$T/c-$sub.json" >/dev/null 2>"$T/err"
  check_rc "cache $sub --json" $? 0 1
  check_json "$T/c-$sub.json"
done
timeout 60 "$KDET" cache verify --dir "$T/cache" >/dev/null 2>"$T/err"
check_rc "cache verify" $? 0

echo "bad_inputs: $tried bad numbers and names tried: $clean clean exit-2 errors naming the option; $utf_tried non-UTF-8 runs: $utf_ok without error; $crashes crashes, $hangs hangs, $e70 exit 70s, $fails failures"
((fails == 0))
