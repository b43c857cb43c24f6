#!/usr/bin/env bash
# tier: quick
# kdet capture never breaks the build when it cannot record:
#  1. --out on a full file system: a command compile (--exec) and a libNVVM compile through the
#     preload run exactly as without kdet (same output, same exit status, no SIGBUS), and kdet
#     says what it lost, and that it could not write the capture (exit 2).
#  2. A pipeline that sets a file size limit of 0 (ulimit -f 0) for itself: its compile runs as
#     without kdet (no SIGXFSZ), and kdet says what it lost (no compile captured: exit 3).
# Uses a small private tmpfs mount in the test's temp folder; skipped visibly where mount is refused.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR, KDET_BINARY_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] || skip "fakes or capture clients not built (ninja kdet_test_fakes kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll
mkdir "$T/small" "$T/w"
mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null || skip "cannot mount a private tmpfs here (not root, or no permission)"
on_exit 'umount "$T/small" 2>/dev/null'
head -c 2000000 /dev/zero >"$T/small/fill" 2>/dev/null || true
[[ $(stat -f -c %a "$T/small") == 0 ]] || fail "the tmpfs is not full"

# tiny -o OUT IN: copies IN to OUT ("-": to stdout), a compiler in one line.
cat >"$T/w/tiny" <<'SH'
#!/bin/sh
if [ "$2" = - ]; then cat "$3"; else cp "$3" "$2"; fi
SH
chmod +x "$T/w/tiny"
echo in1 >"$T/w/a.txt"
cd "$T/w"

# 1. The same steps without kdet, then under kdet capture --out on the full file system.
step='./tiny -o "$4" a.txt; echo "step rc=$?"; "$1" "$2" 1 1 "$3" -- -fake-mode=echo; echo "library rc=$?"'
sh -c "$step" sh "$CL/capture_nvvm_client" "$FAKE" "$IN" ref.out >"$T/ref.stdout" 2>&1
expect_eq "reference run" "$(cat "$T/ref.stdout")" $'step rc=0\nlibrary rc=0'
expect_rc 2 "$KDET" capture --exec tiny --out "$T/small/c" --json "$T/c.json" -- sh -c "$step" sh "$CL/capture_nvvm_client" "$FAKE" "$IN" a.out
cmp "$T/ref.stdout" "$T/out" || { cat "$T/out" "$T/err" >&2; fail "the pipeline's output differs from its run without kdet"; }
cmp ref.out a.out || fail "the step's output file differs from its run without kdet"
for kind in exec nvvm; do
  grep -Eq "LOST +1 $kind compile of process [0-9]+ could not be recorded: No space left on device" "$T/err" || { cat "$T/err" >&2; fail "the $kind compile is not named lost"; }
done
grep -q "the pipeline exited 0" "$T/err" || { cat "$T/err" >&2; fail "the summary names how the pipeline ended"; }
grep -q "kdet: error: the capture in $T/small/c is incomplete: .*No space left on device" "$T/err" || { cat "$T/err" >&2; fail "kdet does not say the capture folder is full"; }
expect_eq "JSON lost notes" "$(json_eval "$T/c.json" 'sorted(n["kind"] for n in d["notes"] if n["kind"] == "lost")')" "['lost', 'lost']"

# 2. A pipeline under a file size limit of 0: writing past it would raise SIGXFSZ.
step='(ulimit -f 0; ./tiny -o - a.txt; echo "step rc=$?") | cat'
sh -c "$step" >"$T/ref2.stdout" 2>&1
expect_eq "reference run, ulimit -f 0" "$(cat "$T/ref2.stdout")" $'in1\nstep rc=0'
expect_rc 3 "$KDET" capture --exec tiny --out "$T/lim" -- sh -c "$step"
cmp "$T/ref2.stdout" "$T/out" || { cat "$T/out" "$T/err" >&2; fail "ulimit -f 0: the pipeline's output differs from its run without kdet"; }
grep -Eq 'LOST +1 exec compile of process [0-9]+ could not be recorded: .*file size limit' "$T/err" || { cat "$T/err" >&2; fail "ulimit -f 0: no LOST compile in the summary"; }
echo "capture_disk_full: PASS"
