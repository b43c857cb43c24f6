#!/usr/bin/env bash
# tier: quick
# What a capture keeps when things go wrong: a compile that crashes the
# pipeline stays recorded (inputs, no result); a kdet capture killed while the
# pipeline hangs in a compile leaves its raw record and no process behind, and
# kdet capture --finish makes the bundles from it; a
# capture folder that cannot be written never breaks the pipeline.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
LIB=$(dirname "$KDET")/libkdet_capture.so
[[ -f $FAKE && -x $CL/capture_nvvm_client && -f $LIB ]] || skip "fakes, capture clients or libkdet_capture.so not built"
IN=$EX/nvvm/llvm7/saxpy.ll

# A compile that crashes: recorded with its inputs and no result (unfinished); the pipeline
# was killed by it, so the capture is 3.
expect_exit 3 "$KDET" capture --json "$T/c.json" -- sh -c '"$1" "$2" 1 1 "$3" -- -fake-mode=echo; "$1" "$2" 1 1 "$3" -- -fake-mode=crash' sh "$CL/capture_nvvm_client" "$FAKE" "$IN"
[[ $(json_eval "$T/c.json" 'len(d["compiles"])') == 2 ]] || fail "both compiles recorded"
[[ $(json_eval "$T/c.json" '[c["result"] for c in d["compiles"]]') == "[0, None]" ]] || fail "the crashed compile has no result"
[[ $(json_eval "$T/c.json" '[b["unfinished"] for b in d["bundles"]]') == "[0, 1]" ]] || fail "unfinished counted"
[[ $(json_eval "$T/c.json" 'd["pipeline"]["exit_code"]') == 139 ]] || fail "the pipeline's status (sh saw SIGSEGV)"

# kdet capture killed with SIGKILL while the pipeline hangs inside a compile.
cp "$CL/capture_nvvm_client" "$T/hang_client"
"$KDET" capture --out "$T/k" -- "$T/hang_client" "$FAKE" 1 1 "$IN" -- -fake-mode=hang >"$T/k.log" 2>&1 &
kpid=$!
for _ in $(seq 100); do
  cat "$T"/k/raw/records/*.log 2>/dev/null | grep -qx begin && break
  sleep 0.1
done
rec=$(compgen -G "$T/k/raw/records/*.log" | head -1) || fail "no record appeared"
kill -9 "$kpid"
wait "$kpid" 2>/dev/null || true
grep -qx begin "$rec" || fail "the record's header is incomplete"
grep -Eq '^[0-9]+ result' "$rec" && fail "a hung compile cannot have a result"
grep -qx 'option x2d66616b652d6d6f64653d68616e67' "$rec" || fail "the option (-fake-mode=hang) is recorded"
h=$(sed -n 's/^module \([0-9a-f]*\) .*/\1/p' "$rec")
# The module's bytes are in the process's blob pack: "kdet-blob HASH SIZE\n" then the bytes.
python3 - "$h" "$IN" "$T"/k/raw/blobs/*.pack <<'PY' || fail "the module's bytes are kept"
import sys
want, src, packs = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3:]
for p in packs:
    data, off = open(p, "rb").read(), 0
    while off < len(data):
        nl = data.index(b"\n", off)
        _, h, n = data[off:nl].decode().split()
        body = data[nl + 1 : nl + 1 + int(n)]
        if h == want and body == src:
            sys.exit(0)
        off = nl + 1 + int(n)
sys.exit(1)
PY
for _ in $(seq 50); do
  pgrep -f "$T/hang_client" >/dev/null || break
  sleep 0.1
done
pgrep -f "$T/hang_client" >/dev/null && fail "the hung pipeline outlived kdet capture"
# kdet capture --finish writes the bundles and manifest from what the killed capture left.
"$KDET" capture --finish --out "$T/k" --json "$T/kf.json" 2>"$T/kf.log" || fail "--finish: exit $?"
[[ $(json_eval "$T/kf.json" '[b["unfinished"] for b in d["bundles"]]') == "[1]" ]] || fail "--finish: the hung compile's bundle"
[[ -f $T/k/manifest.toml && -d $T/k/bundles ]] || fail "--finish: no bundles or manifest"
grep -q "bundles made from the records in" "$T/kf.log" || fail "--finish: summary"
rc=0; "$KDET" capture --finish --out "$T/k" 2>"$T/kf2.log" || rc=$?
[[ $rc == 2 ]] || fail "--finish twice: exit $rc, not 2"

# SIGTERM to kdet capture: the pipeline ends, what was recorded is summarized and written, exit 130.
cp "$CL/capture_nvvm_client" "$T/term_client"
"$KDET" capture --out "$T/t" --json "$T/t.json" -- "$T/term_client" "$FAKE" 1 1 "$IN" -- -fake-mode=hang >"$T/t.log" 2>&1 &
kpid=$!
for _ in $(seq 100); do
  cat "$T"/t/raw/records/*.log 2>/dev/null | grep -qx begin && break
  sleep 0.1
done
kill -TERM "$kpid"
set +e
wait "$kpid"
rc=$?
set -e
[[ $rc == 130 ]] || { cat "$T/t.log" >&2; fail "SIGTERM: exit $rc, expected 130"; }
grep -q 'the pipeline was killed by signal 15' "$T/t.log" || { cat "$T/t.log" >&2; fail "summary after SIGTERM"; }
[[ $(json_eval "$T/t.json" 'len(d["compiles"]), d["compiles"][0]["result"]') == "(1, None)" ]] || fail "the hung compile is in the JSON"
pgrep -f "$T/term_client" >/dev/null && fail "the pipeline outlived SIGTERM"

# SIGINT to kdet capture while the pipeline's children run: they are ended because kdet was
# interrupted, and the summary says so (not that --wait-children ran out).
"$KDET" capture --json "$T/i.json" -- sh -c 'sleep 97 & sleep 97 & sleep 97' >"$T/i.log" 2>&1 &
kpid=$!
sleeps() { # how many of this test's processes are `sleep 97` itself (kdet's argv names it too)
  local p n=0
  for p in $(test_pids "sleep 97"); do [[ $(cat "/proc/$p/comm" 2>/dev/null) == sleep ]] && n=$((n + 1)); done
  echo "$n"
}
for _ in $(seq 100); do
  [[ $(sleeps) == 3 ]] && break
  sleep 0.1
done
kill -INT "$kpid"
set +e
wait "$kpid"
rc=$?
set -e
[[ $rc == 130 ]] || { cat "$T/i.log" >&2; fail "SIGINT: exit $rc, expected 130"; }
grep -Eq 'KILLED +3 processes the pipeline left, ended because kdet was interrupted' "$T/i.log" || { cat "$T/i.log" >&2; fail "SIGINT: the summary does not say the children were ended by the interrupt"; }
grep -Eq 'stopped waiting|waited +0 us' "$T/i.log" && { cat "$T/i.log" >&2; fail "SIGINT: the summary speaks of the wait bound"; }
expect_eq "SIGINT: JSON children.interrupted" "$(json_eval "$T/i.json" 'd["children"]["interrupted"]')" True
wait_no_pids 10 "sleep 97" || fail "SIGINT: the pipeline's children outlived kdet capture"

# Recording fails (no such folder, or not absolute): the pipeline runs as without capture.
expect_exit 0 env LD_PRELOAD="$LIB" KDET_CAPTURE_DIR="$T/missing" "$CL/capture_nvvm_client" "$FAKE" 2 2 "$IN" -- -fake-mode=echo
expect_exit 0 env LD_PRELOAD="$LIB" KDET_CAPTURE_DIR=relative "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=echo
[[ -e relative ]] && fail "a relative capture folder was written"
mkdir "$T/ro" "$T/ro/records" "$T/ro/blobs" && chmod 500 "$T/ro/records" "$T/ro/blobs"
expect_exit 0 env LD_PRELOAD="$LIB" KDET_CAPTURE_DIR="$T/ro" "$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=echo
echo "capture_killed: OK"
