#!/usr/bin/env bash
# tier: quick
# scan_failures.sh: a census through a ptxas too old for most of its PTX (the fake_cc oldptxas
# mode fails as ptxas 12.x does: exit 255, "Unsupported .version 9.0") is summarized, not
# printed job by job:
# - the terminal shows one FAILED line per way of failing (count, compiler, exit status, the
#   compiler's first error line with the input's path and line made generic); a job failing
#   another way gets its own line; --failures lists the jobs under their group;
# - JSON failure_groups holds the groups, each variant the compiler's log;
# - JUnit: each failed job's error names its group and carries the compiler's log;
# - HTML: a table of the groups (their jobs behind a disclosure) and the log in each job's card;
# - scan --report re-renders the same from the database; exit 3 throughout.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
mkdir -p "$T/ptx/new" "$T/ptx/old"
# 12 PTX files too new for the fake's 8.5 (.version on different lines) and 2 it accepts.
for i in $(seq 1 12); do
  {
    for ((k = 0; k < i % 3; k++)); do echo "// header line $k"; done
    printf '.version 9.0\n.target sm_90\n// kernel %s\n' "$i"
  } >"$T/ptx/new/k$i.ptx"
done
printf '.version 8.0\n.target sm_80\n// old %s\n' 1 >"$T/ptx/old/a.ptx"
printf '.version 8.5\n.target sm_80\n// old %s\n' 2 >"$T/ptx/old/b.ptx"
cat >"$T/m.toml" <<TOML
name = "census"
inputs = ["ptx/new/*.ptx", "ptx/old/*.ptx"]
[option_sets]
default = []
[[compiler]]
name = "ptxas-old"
backend = "exec"
command = "$FAKES/fake_cc oldptxas {input} {output}"
output_ext = "cubin"
[budget]
max_runs = 3
TOML
set +e
"$KDET" scan "$T/m.toml" --db "$T/m.db" --jobs 2 --color never --junit "$T/m.xml" \
  --json "$T/m.json" --report-html "$T/m.html" >"$T/out" 2>"$T/err"
rc=$?
set -e
expect_eq "a census with failed jobs: exit" "$rc" 3
cat "$T/out"
# One line for the 12 jobs, with the compiler, kdet's description and ptxas's own first line.
n_failed=$(grep -c '^  FAILED ' "$T/out")
expect_eq "FAILED lines" "$n_failed" 1
grep -qE "^  FAILED +12 jobs on ptxas-old: compile-error: .*fake_cc exited 255: ptxas <file>, line N; fatal : Unsupported \.version 9\.0; current version is '8\.5'$" "$T/out" ||
  fail "no single FAILED line for the 12 jobs with ptxas's error"
grep -q -- '--failures lists the jobs' "$T/out" || fail "the summary does not say how to list the jobs"
if grep -q 'k1\.ptx' "$T/out"; then fail "a job of the group is listed without --failures"; fi

# --failures: every job under its group; the re-rendered report agrees.
set +e
"$KDET" scan --report "$T/m.db" --failures --color never >"$T/list" 2>&1
rc=$?
set -e
expect_eq "scan --report --failures: exit" "$rc" 3
for i in $(seq 1 12); do
  grep -qE "^ {20,}ptx/new/k$i\.ptx ptxas-old default$" "$T/list" || { cat "$T/list"; fail "k$i.ptx not listed under its group"; }
done
if grep -q 'ptx/old/' "$T/list"; then fail "a job that succeeded is listed as failed"; fi

# JSON: the group, and the compiler's log in each failing variant.
python3 - "$T/m.json" <<'PY' || fail "JSON failure_groups or variant log wrong"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["failure_groups"]
assert len(g) == 1, g
g = g[0]
assert g["count"] == 12 and len(g["jobs"]) == 12, g
assert g["compiler"] == "ptxas-old" and g["status"] == "compile-error", g
assert g["detail"].endswith("fake_cc exited 255"), g
assert g["message"] == "ptxas <file>, line N; fatal : Unsupported .version 9.0; current version is '8.5'", g
failed = [j for j in d["jobs"] if j["status"] == "failed"]
assert len(failed) == 12
for j in failed:
    log = j["variants"][0]["log"]
    assert "Unsupported .version 9.0" in log and "Ptx assembly aborted" in log, log
    assert j["id"] in g["jobs"]
ok = [j for j in d["jobs"] if j["status"] == "deterministic"]
assert len(ok) == 2 and all(j["variants"][0]["log"] == "" for j in ok), ok
PY

# JUnit: 12 errors, each naming its group and holding ptxas's lines.
expect_eq "JUnit error elements" "$(grep -o '<error ' "$T/m.xml" | wc -l)" 12
expect_eq "JUnit errors naming the group" \
  "$(grep -o 'message="compiler failed: compile-error: [^"]*exited 255: ptxas &lt;file&gt;, line N; fatal : Unsupported .version 9.0; current version is &#39;8.5&#39; (one of 12 failing this way)"' "$T/m.xml" | wc -l)" 12
grep -q 'fatal   : Unsupported .version 9.0' "$T/m.xml" || fail "the JUnit error does not carry ptxas's log"
grep -q 'Ptx assembly aborted due to errors' "$T/m.xml" || fail "the JUnit error does not carry the whole log"

# HTML: one group row listing 12 jobs; a failed job's card quotes ptxas.
expect_eq "HTML failure-group rows" "$(grep -o 'class="failure-group"' "$T/m.html" | wc -l)" 1
grep -q '<summary>12</summary>' "$T/m.html" || fail "the HTML group does not count 12 jobs"
grep -q 'class="compiler-error">The compiler said: <code>ptxas .*Unsupported .version 9.0' "$T/m.html" ||
  fail "no job card quotes the compiler's error"

# A second way of failing is a second line; a lone failure names its job.
printf '.version 9.1\n// another\n' >"$T/ptx/new/z.ptx"
set +e
"$KDET" scan "$T/m.toml" --db "$T/m2.db" --jobs 2 --color never >"$T/out2" 2>&1
rc=$?
set -e
expect_eq "two ways of failing: exit" "$rc" 3
grep -qE "^  FAILED +12 jobs on ptxas-old: .*Unsupported \.version 9\.0;" "$T/out2" ||
  { cat "$T/out2"; fail "the 9.0 group lost its line"; }
grep -qE "^  FAILED +ptx/new/z\.ptx ptxas-old default  \(every one of 3 runs: compile-error: .*Unsupported \.version 9\.1;" "$T/out2" ||
  { cat "$T/out2"; fail "the lone 9.1 failure is not a line naming its job"; }
echo "scan_failures: PASS"
