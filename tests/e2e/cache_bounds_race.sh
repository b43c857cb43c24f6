#!/usr/bin/env bash
# tier: slow
# A member of a shared cache swaps (renameat2 RENAME_EXCHANGE, in a loop) the victim's variant
# folder with one of its own holding a copy of the victim's meta.json and a 60 GB sparse a0.
# A hit may read the record of trust in one folder and the artifact in the other: it must read
# no more of the artifact than the record's size, so every compile exits 0 with the victim's
# bytes. Before, about 7 % of them died with std::bad_alloc (exit 70). 8 seconds.
source "$(dirname "$0")/lib/common.bash"
CC=$KDET_FAKES_DIR/fake_cc
[[ -x $CC ]] || skip "fake compilers not built (ninja kdet_test_fakes)"
[[ $(id -u) == 0 ]] || skip "needs root to act as two other uids"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 not installed (renameat2 through ctypes)"
group=65530
victim=(setpriv --reuid 65532 --regid "$group" --clear-groups)
attacker=(setpriv --reuid 65533 --regid "$group" --clear-groups)
chmod 755 "$T"
"${victim[@]}" "$KDET" --version >/dev/null 2>&1 || skip "the victim cannot run $KDET (a private folder above it)"
mkdir -p "$T/v" "$T/cache"
chown 65532 "$T/v"
chgrp "$group" "$T/cache"
chmod 2775 "$T/cache"
printf 'kernel one\n' >"$T/k.txt"
chmod 644 "$T/k.txt"
cat >"$T/xchg.py" <<'PY'
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, end = sys.argv[1].encode(), sys.argv[2].encode(), time.time() + float(sys.argv[3])
n = 0
while time.time() < end:
    n += libc.renameat2(-100, a, -100, b, 2) == 0  # AT_FDCWD, RENAME_EXCHANGE
print(n)
PY
chmod 644 "$T/xchg.py"
c() { "${victim[@]}" "$KDET" cache compile "$T/k.txt" --backend exec --cmd "$CC env {input} {output}" \
  --dir "$T/cache" -o "$T/v/out" --verify-rate 0 "$@"; }
c -q
E=$(dirname "$(dirname "$(find "$T/cache" -name meta.json | head -1)")")
V=$(ls "$E")
"${attacker[@]}" sh -c "mkdir '$E/zz' && cp '$E/$V/meta.json' '$E/zz/' && truncate -s 60G '$E/zz/a0'"
"${attacker[@]}" /usr/bin/python3 "$T/xchg.py" "$E/$V" "$E/zz" 8 >"$T/swaps" &
racer=$!
on_exit "kill $racer 2>/dev/null"
n=0 bad=0
end=$((SECONDS + 8))
while ((SECONDS < end)); do
  n=$((n + 1))
  rc=0
  c 2>>"$T/err" || rc=$?
  if ((rc != 0)) || ! grep -q 'kernel one' "$T/v/out"; then
    bad=$((bad + 1))
    echo "compile $n: exit $rc" >>"$T/bad"
  fi
done
wait "$racer" || true
(($(cat "$T/swaps" 2>/dev/null || echo 0) > 100)) || fail "the racer made no exchanges: $(cat "$T/swaps")"
((n >= 10)) || fail "only $n compiles in 8 s"
((bad == 0)) || fail "$bad of $n compiles failed or served other bytes: $(head -3 "$T/bad"); $(grep -m1 'internal error' "$T/err")"
echo "$NAME: ok ($n compiles under a racing exchange)"
