#!/usr/bin/env bash
# tier: quick
# cache_launcher_env.sh: `kdet cc COMPILER ARGS...` (a compiler launcher) never fails the build's
# compile step for trouble of kdet's own: with TMPDIR missing, a file or read-only (no temporary
# folder), with no cache folder (HOME unset, no KDET_CACHE_DIR), or an output kdet cannot place,
# it warns "the compile runs uncached" and runs the compiler as it is: the same output file, the
# same exit status and messages as without kdet. A bad KDET_CACHE_* setting still exits 2.
# Uses a one-line compiler script (no CUDA); the read-only TMPDIR needs a private tmpfs mount
# in the test's temp folder, and is left out, visibly, where mount is refused.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
mkdir "$T/bin" "$T/w"
# mycc -o OUT IN: OUT is IN upper-cased.
cat >"$T/bin/mycc" <<'SH'
#!/bin/sh
[ "$1" = -o ] || exit 2
tr a-z A-Z <"$3" >"$2"
SH
chmod +x "$T/bin/mycc"
MYCC=$T/bin/mycc
export KDET_CACHE_DIR=$T/cache
cd "$T/w"
printf '.version 8.0\n.target sm_90\n' >k.ptx
"$MYCC" -o ref.out k.ptx

# cc_uncached WHAT OUT [ENV...]: kdet cc under `env ENV...`, with a cache of its own (a miss, which
# needs kdet's temporary folder), exits 0, writes the compiler's output to OUT, prints nothing on
# stdout, and warns that the compile ran uncached.
cc_uncached() {
  local what=$1 out=$2
  shift 2
  rm -f "$out"
  KDET_CACHE_DIR=$T/cache-$out expect_rc 0 env "$@" "$KDET" cc "$MYCC" -o "$out" k.ptx
  cmp ref.out "$out" || fail "$what: the output differs from the compiler's"
  [[ ! -s $T/out ]] || fail "$what: kdet printed on stdout: $(cat "$T/out")"
  grep -q "^kdet cc: warning: .*; the compile runs uncached$" "$T/err" || fail "$what: no warning: $(cat "$T/err")"
}

expect_rc 0 "$KDET" cc "$MYCC" -o a.out k.ptx
cmp ref.out a.out || fail "the cached path's output differs from the compiler's"

# No temporary folder: TMPDIR missing, or a file.
cc_uncached "TMPDIR missing" b.out TMPDIR="$T/missing"
grep -q "cannot create a temporary folder in $T/missing" "$T/err" || fail "TMPDIR missing: $(cat "$T/err")"
: >"$T/afile"
cc_uncached "TMPDIR a file" c.out TMPDIR="$T/afile"
# No cache folder: HOME unset, no KDET_CACHE_DIR nor XDG_CACHE_HOME.
cc_uncached "HOME unset" d.out -u HOME -u KDET_CACHE_DIR -u XDG_CACHE_HOME
grep -q "HOME is not set" "$T/err" || fail "HOME unset: $(cat "$T/err")"
# An output folder that does not exist: the compiler's own exit status and message.
set +e
"$MYCC" -o nodir/x.out k.ptx 2>"$T/direct.err"
want=$?
set -e
expect_rc "$want" "$KDET" cc "$MYCC" -o nodir/x.out k.ptx
tail -1 "$T/err" | cmp - <(tail -1 "$T/direct.err") || fail "missing output folder: not the compiler's message: $(cat "$T/err")"
# A bad setting is the user's to fix: exit 2, naming the variable.
expect_rc 2 env KDET_CACHE_VERIFY_RATE=abc "$KDET" cc "$MYCC" -o e.out k.ptx
grep -q 'KDET_CACHE_VERIFY_RATE abc' "$T/err" || fail "bad setting: $(cat "$T/err")"

# A read-only TMPDIR (a read-only mount: root ignores file modes).
mkdir "$T/ro"
if mount -t tmpfs -o size=1m,ro tmpfs "$T/ro" 2>/dev/null; then
  on_exit 'umount "$T/ro" 2>/dev/null'
  cc_uncached "TMPDIR read-only" f.out TMPDIR="$T/ro"
  grep -q "Read-only file system" "$T/err" || fail "TMPDIR read-only: $(cat "$T/err")"
else
  echo "$NAME: note: read-only TMPDIR not tried (cannot mount a private tmpfs here)"
fi
echo "cache_launcher_env: PASS"
