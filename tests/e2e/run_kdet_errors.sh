#!/usr/bin/env bash
# tier: quick
# Runs that end in an error of kdet's own are no outcome of the compiler. A hard limit on open
# files lets the first workers start and refuses the later ones ("could not start a worker"):
# a deterministic compiler must never be called NONDETERMINISTIC for it, in run or in scan.
# The limits that give such a mix depend on the build (a sanitizer's own files), so the test
# tries a range and needs the mix at one of them at least.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
cd "$T"
printf 'define void @k() {\n  ret void\n}\n' >k.ll

mixed=0
for n in $(seq 16 2 64); do
  rc=0
  (ulimit -n "$n" &&
    exec "$KDET" run k.ll --lib "$FAKE" -n 12 -j 4 --process fresh --json r.json) >r.out 2>&1 || rc=$?
  # 2: too few files for even the first worker (nothing ran, said as such); 3: every run lost.
  case $rc in
    0 | 2 | 3) ;;
    *) cat r.out; fail "limit $n: exit $rc, not 0, 2 or 3" ;;
  esac
  [[ $rc == 2 ]] && continue
  read -r completed counted lost verdict < <(json_eval r.json \
    "' '.join(str(x) for x in (d['runs']['completed'], d['runs']['counted'], d['runs']['kdet_errors'], d['verdict']))")
  ((counted + lost == completed)) || fail "limit $n: $counted counted and $lost lost of $completed"
  if ((lost > 0)); then
    grep -q "^lost      $lost runs\? ended in an error of kdet's own" r.out || { cat r.out; fail "limit $n: no lost line"; }
  fi
  if ((lost > 0 && counted > 0)); then
    mixed=$((mixed + 1))
    [[ $verdict == deterministic && $rc == 0 ]] || { cat r.out; fail "limit $n: $verdict (exit $rc)"; }
    grep -q "verdict   DETERMINISTIC: all $counted runs gave the same output\|verdict   NO VARIANCE SEEN in $counted runs\? (" r.out ||
      { cat r.out; fail "limit $n: the verdict does not count the $counted runs"; }
  fi
done
((mixed > 0)) || fail "no file limit from 16 to 64 gave runs that compiled beside runs kdet lost"

# A scan under the same kind of limit: no job varies for it, and the summary says what was lost.
printf 'inputs = ["k.ll"]\n[option_sets]\nO3 = ["-opt=3"]\n[[compiler]]\nname = "fake"\nbackend = "nvvm"\nlib = "%s"\n[setting]\nprocess = "fresh"\nunnamed = "natural"\n[budget]\nmax_runs = 12\nfirst_round = 12\n' "$FAKE" >m.toml
scanned=0
for n in $(seq 16 2 64); do
  rm -f s.db s.db-wal s.db-shm
  rc=0
  (ulimit -n "$n" &&
    exec "$KDET" scan m.toml --db s.db -j 4 --json s.json) >s.out 2>&1 || rc=$?
  [[ $rc == 1 ]] && { cat s.out; fail "limit $n: the scan says a job varies (exit 1)"; }
  [[ -s s.json ]] || continue
  lost=$(json_get s.json '["summary"]["kdet_errors"]["runs"]')
  varying=$(json_get s.json '["summary"]["nondeterministic"]')
  [[ $varying == 0 ]] || { cat s.out; fail "limit $n: $varying varying jobs"; }
  if ((lost > 0)) && [[ $(json_get s.json '["jobs"][0]["ok_runs"]') -gt 0 ]]; then
    scanned=$((scanned + 1))
    grep -q "lost:          $lost runs\? of 1 job ended in an error of kdet's own" s.out || { cat s.out; fail "limit $n: no lost line"; }
  fi
done
((scanned > 0)) || fail "no file limit from 16 to 64 gave a scan job with runs that compiled beside runs kdet lost"
echo "$NAME: ok ($mixed run limits and $scanned scan limits gave a mix)"
