#!/usr/bin/env bash
# tier: quick
# Two non-root members of one shared cache (docs/CACHE.md, "Trust"): whatever the attacker does
# with the write access the group has, the victim is never served bytes the victim (or root, or
# the cache folder's owner) did not compile, and a planted variant never fails the victim's
# `--on-variants fail` build. Attacks 1, 2, 4 and 5 served planted or misplaced bytes, failed the
# build, or changed the key before the records of trust; 3 was caught by the XXH3 check already
# (kept: the SHA-256 of the record is what stops crafted bytes). Attack 1 models a cache that an
# earlier kdet filled with 0664 files.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/members.bash"
variant_of() { # variant_of FILE: the variant folder whose a0 holds FILE's line
  dirname "$(grep -l "$(head -1 "$1")" "$C"/v1/entries/*/*/variants/*/a0 | head -1)"
}
printf 'kernel one\n' >"$T/k1.txt"
printf 'kernel two\n' >"$T/k2.txt"
chmod 644 "$T"/k*.txt

# 0. What a shared cache writes: records nobody else may write; the log is the group's.
fresh c0
as victim "$T/k1.txt" "" --verify-rate 0 -q
meta=$(find "$C" -name meta.json | head -1)
expect_eq "meta.json mode" "$(stat -c %a "$meta")" 644
expect_eq "artifact mode" "$(stat -c %a "$(dirname "$meta")/a0")" 644
expect_eq "key.json mode" "$(stat -c %a "$(dirname "$(dirname "$(dirname "$meta")")")/key.json")" 644
expect_eq "log mode" "$(stat -c %a "$(dirname "$(dirname "$(dirname "$meta")")")/log")" 664
if "${attacker[@]}" sh -c "printf planted >'$(dirname "$meta")/a0'" 2>/dev/null; then
  fail "the attacker could write the victim's artifact"
fi
grep -q '"sha256"' "$meta" || fail "meta.json names no SHA-256"

# 1. Rename the victim's variant away, write planted bytes and their meta.json into the victim's
#    own (legacy 0664) files, log the new name first. Served before: planted bytes, exit 0.
fresh c1
as victim "$T/k1.txt" "" --verify-rate 0 -q
vdir=$(variant_of "$T/k1.txt")
chmod 664 "$vdir"/* # as an earlier kdet left them
# The attacker makes the planted variant in a scratch cache of its own (same key: the env is not in it).
FAKE_CC_ENV=planted "${attacker[@]}" "$KDET" cc "$T/k1.txt" --dir "$T/a/scratch" -q --verify-rate 0 \
  -o "$T/a/p.out" -- "$CC" env {input} {output}
pdir=$(dirname "$(grep -l planted "$T"/a/scratch/v1/entries/*/*/variants/*/a0)")
pid=$(basename "$pdir")
"${attacker[@]}" sh -c "mv '$vdir' '$(dirname "$vdir")/$pid' && cat '$pdir/a0' >'$(dirname "$vdir")/$pid/a0' \
  && cat '$pdir/meta.json' >'$(dirname "$vdir")/$pid/meta.json' \
  && printf '{\"event\":\"variant\",\"variant\":\"$pid\",\"how\":\"fill\"}\n' >>'$(dirname "$(dirname "$vdir")")/log'" ||
  fail "the attack could not be set up"
[[ $(stat -c %u "$(dirname "$vdir")/$pid/a0") == 65532 ]] || fail "the planted file is not the victim's"
for rate in 0 1; do
  as victim "$T/k1.txt" "" --verify-rate "$rate" 2>"$T/err1" || fail "victim's compile failed: $(cat "$T/err1")"
  grep -q planted "$T/v/out" && fail "planted bytes served (verify rate $rate): $(cat "$T/err1")"
  grep -q 'FAKE_CC_ENV: (unset)' "$T/v/out" || fail "not the victim's own output: $(cat "$T/v/out")"
done

# 2. Move the victim's genuine variant of k2 under k1's key (its own k1 variant moved away).
fresh c2
as victim "$T/k1.txt" "" --verify-rate 0 -q
as victim "$T/k2.txt" "" --verify-rate 0 -q
v1=$(variant_of "$T/k1.txt")
v2=$(variant_of "$T/k2.txt")
"${attacker[@]}" sh -c "mv '$v1' '$(dirname "$v1")/.gone' && mv '$v2' '$(dirname "$v1")/$(basename "$v2")'" ||
  fail "the move could not be set up"
as victim "$T/k1.txt" "" --verify-rate 0 2>"$T/err2" || fail "victim's compile failed: $(cat "$T/err2")"
grep -q 'kernel one' "$T/v/out" || fail "k2's variant was served for k1: $(cat "$T/v/out")"

# 3. Replace an artifact file (the variant folder is the group's: unlink and create).
fresh c3
as victim "$T/k1.txt" "" --verify-rate 0 -q
vdir=$(variant_of "$T/k1.txt")
"${attacker[@]}" sh -c "rm -f '$vdir/a0' && printf '// planted\n' >'$vdir/a0'" ||
  fail "the replacement could not be set up"
as victim "$T/k1.txt" "" --verify-rate 0 2>"$T/err3" || fail "victim's compile failed: $(cat "$T/err3")"
grep -q planted "$T/v/out" && fail "a replaced artifact was served"
grep -q 'kernel one' "$T/v/out" || fail "not the victim's output: $(cat "$T/v/out")"

# 4. A planted variant whose meta.json is a hard link to the victim's own (the attacker's own
#    link where fs.protected_hardlinks allows it, root's otherwise): the victim's
#    --on-variants fail build still passes, and holds one variant it trusts.
fresh c4
as victim "$T/k1.txt" "" --verify-rate 0 -q
vdir=$(variant_of "$T/k1.txt")
FAKE_CC_ENV=planted "${attacker[@]}" "$KDET" cc "$T/k1.txt" --dir "$C" -q --verify-rate 0 \
  -o "$T/a/p.out" -- "$CC" env {input} {output}
pdir=$(dirname "$(grep -l planted "$C"/v1/entries/*/*/variants/*/a0)")
"${attacker[@]}" rm -f "$pdir/meta.json"
"${attacker[@]}" ln "$vdir/meta.json" "$pdir/meta.json" 2>/dev/null || ln "$vdir/meta.json" "$pdir/meta.json"
[[ $(stat -c %h "$vdir/meta.json") == 2 ]] || fail "the link could not be set up"
as victim "$T/k1.txt" "" --verify-rate 0 --on-variants fail --json "$T/v/r4.json" 2>"$T/err4" ||
  fail "a planted hard link failed the victim's build: $(cat "$T/err4")"
grep -q 'kernel one' "$T/v/out" || fail "not the victim's output"
grep -q planted "$T/v/out" && fail "planted bytes served"
expect_eq "variants the victim trusts" "$(json_get "$T/v/r4.json" '["variants"]')" 1

# 5. The victim's own identity memo is trusted; one the attacker writes is not used.
fresh c5
as victim "$T/k1.txt" "" --verify-rate 0 -q
memo=$(find "$C/v1/identity" -name '*.json' | head -1)
[[ -n $memo ]] || fail "no identity memo written"
expect_eq "memo mode" "$(stat -c %a "$memo")" 644
python3 - "$memo" "$T/a/memo" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["content_hash"] = "0" * 32
open(sys.argv[2], "w").write(json.dumps(j))
EOF
"${attacker[@]}" sh -c "cat '$T/a/memo' >'$memo.new' && mv -f '$memo.new' '$memo'"
as victim "$T/k1.txt" "" --verify-rate 0 --json "$T/v/r5.json" 2>/dev/null
expect_eq "result with a planted memo" "$(json_get "$T/v/r5.json" '["result"]')" hit
echo OK
