#!/usr/bin/env bash
# tier: quick
# Files replaced while kdet runs (a package upgrade or a rebuild: both rename a new file over
# the old one):
# - kdet's own binary: the driver goes on starting workers of its own binary, so the runs after
#   the replacement are compiles like the ones before, not infra errors of a worker that is no
#   kdet; the workers still show kdet's path.
# - the compiler library: fresh workers would load the new one, so the runs may mix two
#   compilers. kdet run gives no verdict (exit 2, the file named, the JSON still written); a
#   scan stores none of that round's runs and names the compiler; the same bytes with a new
#   mtime (touch) are no change.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
IN=$EX/nvvm/llvm7/saxpy.ll
mkdir "$T/bin" "$T/lib"
cp "$KDET" "$T/bin/kdet"
cp "$FAKES/libfakenvvm.so" "$T/lib/libnvvm.so"

# await_workers N: waits until the test has seen N kdet workers (the first is the probe that
# loads the compiler), and sets $argv to the command line of one (a worker lives about 25 ms
# here: it is read as soon as it is seen).
await_workers() {
  argv=
  local i w a seen=" "
  for ((i = 0; i < 600; i++)); do
    for w in $(test_pids __worker); do
      [[ $seen == *" $w "* ]] && continue
      # A worker may end between the listing and the read: its file gone, or (a zombie) empty.
      # Only a command line read whole counts, and a failed read leaves $argv as it was.
      a=$(tr '\0' ' ' 2>/dev/null <"/proc/$w/cmdline") || continue
      [[ -n $a ]] || continue
      argv=$a
      seen+="$w "
    done
    (($(wc -w <<<"$seen") >= $1)) && return 0
    sleep 0.01
  done
  fail "fewer than $1 workers seen within 6 s"
}
# replace FILE CONTENT_FILE: what an upgrade does, a new file renamed over FILE.
replace() { cp "$2" "$1.new" && chmod +x "$1.new" && mv "$1.new" "$1"; }

# 1. kdet's binary: 40 fresh workers of a 20 ms compile, the replacement after the first.
"$T/bin/kdet" run "$IN" --lib "$T/lib/libnvvm.so" -n 40 --process fresh --json "$T/run.json" \
  -- -fake-mode=slow >"$T/run.out" 2>&1 &
kpid=$!
await_workers 3
[[ $argv == "$T/bin/kdet __worker "* ]] || fail "a worker's command line does not name kdet's path: $argv"
printf '#!/bin/sh\necho "not kdet" >&2\nexit 3\n' >"$T/not-kdet"
replace "$T/bin/kdet" "$T/not-kdet"
rc=0
wait "$kpid" || rc=$?
[[ $rc == 0 ]] || { cat "$T/run.out" >&2; fail "kdet run exited $rc after its file was replaced"; }
expect_eq "runs ok of 40, verdict" "$(json_eval "$T/run.json" 'd["runs"]["ok"], d["verdict"]')" "(40, 'deterministic')"
! grep -q 'not kdet' "$T/run.out" || fail "a worker ran the replaced file"

# 2. The compiler library, replaced by other bytes mid-run: no verdict, exit 2, JSON kept.
cp "$FAKES/libfakenvvm.so" "$T/other.so"
printf 'x' >>"$T/other.so"
"$KDET" run "$IN" --lib "$T/lib/libnvvm.so" -n 40 --process fresh --json "$T/lib.json" \
  -- -fake-mode=slow >"$T/lib.out" 2>&1 &
kpid=$!
await_workers 3
replace "$T/lib/libnvvm.so" "$T/other.so"
rc=0
wait "$kpid" || rc=$?
[[ $rc == 2 ]] || { cat "$T/lib.out" >&2; fail "kdet run exited $rc, want 2, when its compiler was replaced"; }
grep -q "the compiler changed while the runs went on: a new worker found that $T/lib/libnvvm.so holds other bytes than when the runs began.*no verdict" "$T/lib.out" ||
  { cat "$T/lib.out" >&2; fail "no error naming the replaced compiler"; }
[[ $(json_eval "$T/lib.json" 'd["compiler_changed"].startswith("the compiler changed while the runs went on") and d["runs"]["completed"] > 0 and d["exit_code"] == 2') == True ]] ||
  fail "the JSON must keep the runs, say why no verdict stands, and give exit code 2"

# 2b. The soname layout: the path named is a link, re-pointed mid-run to another library (an
# upgrade, update-alternatives); the workers after it load the new target.
mkdir "$T/alt"
cp "$FAKES/libfakenvvm.so" "$T/alt/A.so"
cp "$T/other.so" "$T/alt/B.so"
ln -s A.so "$T/alt/libnvvm.so"
"$KDET" run "$IN" --lib "$T/alt/libnvvm.so" -n 40 --process fresh -- -fake-mode=slow >"$T/link.out" 2>&1 &
kpid=$!
await_workers 3
ln -s B.so "$T/alt/next" && mv -T "$T/alt/next" "$T/alt/libnvvm.so"
rc=0
wait "$kpid" || rc=$?
[[ $rc == 2 ]] || { cat "$T/link.out" >&2; fail "kdet run exited $rc, want 2, when its library link was re-pointed"; }
grep -q "a new worker found that $T/alt/B.so holds other bytes" "$T/link.out" || { cat "$T/link.out" >&2; fail "the new target is not named"; }

# 3. The same bytes, touched mid-run: no change.
cp "$FAKES/libfakenvvm.so" "$T/lib/libnvvm.so"
"$KDET" run "$IN" --lib "$T/lib/libnvvm.so" -n 40 --process fresh -- -fake-mode=slow >"$T/touch.out" 2>&1 &
kpid=$!
await_workers 3
touch -d '2001-01-01' "$T/lib/libnvvm.so"
rc=0
wait "$kpid" || rc=$?
[[ $rc == 0 ]] || { cat "$T/touch.out" >&2; fail "kdet run exited $rc when its compiler was only touched"; }

# 4. A scan: the round that saw the change stores nothing, and the compiler is named.
cp "$FAKES/libfakenvvm.so" "$T/lib/libnvvm.so"
{
  printf 'inputs = ["%s"]\n[option_sets]\nO3 = ["-fake-mode=slow"]\n' "$IN"
  nvvm_compiler fake "" "$T/lib/libnvvm.so"
  printf '[setting]\nprocess = "fresh"\n[budget]\nmax_runs = 40\nfirst_round = 40\n'
} >"$T/m.toml"
"$KDET" scan "$T/m.toml" --db "$T/m.db" --jobs 1 >"$T/scan.out" 2>&1 &
kpid=$!
await_workers 3
replace "$T/lib/libnvvm.so" "$T/other.so"
rc=0
wait "$kpid" || rc=$?
grep -q "compiler 'fake': the compiler changed while the runs went on: a new worker found that $T/lib/libnvvm.so holds other bytes" "$T/scan.out" ||
  { cat "$T/scan.out" >&2; fail "the scan does not name the replaced compiler (exit $rc)"; }
expect_eq "runs stored from the mixed round" "$(sql "$T/m.db" 'select count(*) from runs')" 0
echo "replaced_midrun: OK"
