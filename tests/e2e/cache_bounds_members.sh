#!/usr/bin/env bash
# tier: quick
# Two non-root members of one shared cache (docs/CACHE.md, "Trust" and "Bounds"): a member
# decides the size of every file it plants, so nothing kdet reads from the cache is read whole
# without a bound. Sparse 60 GB files (truncate: no disk used). Before the bounds, 1 and 3 died
# with std::bad_alloc (exit 70); gc (4) counted a folder it could not remove as removed, exit 0.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/members.bash"
owned_by() { # owned_by UID: the variant folders whose meta.json UID owns
  local m
  for m in "$C"/v1/entries/*/*/variants/*/meta.json; do
    [[ $(stat -c %u "$m") == "$1" ]] && dirname "$m"
  done
  return 0
}
printf 'kernel one\n' >"$T/k1.txt"
chmod 644 "$T/k1.txt"

# 1. The attacker renames the victim's artifact away and plants a 60 GB sparse file in its
#    place (the variant folder is the group's). The victim's hit finds it the wrong size before
#    reading it: moved aside, recompiled, served, exit 0.
fresh c1
as victim "$T/k1.txt" "" --verify-rate 0 -q
vdir=$(owned_by 65532)
[[ -n $vdir ]] || fail "no variant stored"
"${attacker[@]}" sh -c "mv '$vdir/a0' '$vdir/a0.away' && truncate -s 60G '$vdir/a0'" ||
  fail "the attack could not be set up"
rc=0
as victim "$T/k1.txt" "" --verify-rate 0 2>"$T/err1" || rc=$?
expect_eq "victim's compile after a 60 GB plant (exit; $(head -c 600 "$T/err1"))" "$rc" 0
grep -q 'kernel one' "$T/v/out" || fail "the victim's output is not its compile's"
grep -q 'fails its size check' "$T/err1" || fail "no size check named: $(cat "$T/err1")"
grep -q 'internal error' "$T/err1" && fail "internal error: $(cat "$T/err1")"

# 2. A variant of the attacker's own: its artifact becomes 60 GB, once with the true size in
#    its meta.json and once without. `cache report` names it, for the victim and for root.
fresh c2
as victim "$T/k1.txt" "" --verify-rate 0 -q
as attacker "$T/k1.txt" evil --verify-rate 0 -q
adir=$(owned_by 65533)
[[ -n $adir ]] || fail "the attacker stored no variant"
"${attacker[@]}" sh -c "rm -f '$adir/a0' && truncate -s 60G '$adir/a0'"
for who in victim root; do
  rc=0
  if [[ $who == root ]]; then
    "$KDET" cache report --dir "$C" >"$T/rep.$who" 2>&1 || rc=$?
  else
    "${victim[@]}" "$KDET" cache report --dir "$C" >"$T/rep.$who" 2>&1 || rc=$?
  fi
  expect_eq "cache report as $who (exit; $(head -c 600 "$T/rep.$who"))" "$rc" 1
  grep -q 'unreadable: artifact .* fails its size check' "$T/rep.$who" ||
    fail "the variant is not named unreadable: $(cat "$T/rep.$who")"
done
"${attacker[@]}" sh -c "cp '$adir/meta.json' '$T/a/m' && rm -f '$adir/meta.json' && \
  sed 's/\"size\": *[0-9]*/\"size\": 64424509440/' '$T/a/m' >'$adir/meta.json'"
rc=0
"${victim[@]}" "$KDET" cache report --dir "$C" >"$T/rep2" 2>&1 || rc=$?
expect_eq "cache report, a meta.json naming 60 GB (exit; $(head -c 600 "$T/rep2"))" "$rc" 1
grep -q 'too large: artifact .* 64424509440 bytes, more than kdet reads' "$T/rep2" ||
  fail "the size bound is not named: $(cat "$T/rep2")"

# 3. On the victim's hit, the attacker's variant is passed over and nothing is compiled: the
#    warning says what was served.
rc=0
as victim "$T/k1.txt" "" --verify-rate 0 2>"$T/err3" || rc=$?
expect_eq "victim's hit (exit)" "$rc" 0
grep -q 'passed over, not served; a variant this user trusts is served' "$T/err3" ||
  fail "the warning does not say what was served: $(cat "$T/err3")"
grep -q 'compiled' "$T/err3" && fail "a hit says it compiled: $(cat "$T/err3")"

# 4. A folder of the attacker's that the victim may not empty: the victim's gc names it, counts
#    it as not removed, says the cache stays over its limit and exits 1. Again on the next run.
"${attacker[@]}" chmod 755 "$adir"
for age in 3600 0; do
  rc=0
  "${victim[@]}" "$KDET" cache gc --dir "$C" --max-size 1G --staging-age $age >"$T/gc.out" 2>"$T/gc.err" || rc=$?
  expect_eq "gc with an undeletable folder, staging age $age (exit; $(cat "$T/gc.out" "$T/gc.err"))" "$rc" 1
  grep -q 'gc could not remove .*bytes stay' "$T/gc.err" || fail "not named: $(cat "$T/gc.err")"
  grep -q '1 could not be removed, the cache stays over its limit' "$T/gc.out" ||
    fail "the summary hides it: $(cat "$T/gc.out")"
  grep -q 'removed 0 keys, 0 damaged, 0 staging' "$T/gc.out" ||
    fail "counted as removed: $(cat "$T/gc.out")"
done
echo "$NAME: ok"
