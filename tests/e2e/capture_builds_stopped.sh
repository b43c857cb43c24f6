#!/usr/bin/env bash
# tier: quick
# kdet capture --builds stopped part-way, and a build's folder removed by a later --clean:
#  1. SIGTERM (and SIGINT from a process) during build 1 or 2 of 3: exit 130, and the --json
#     file is still written, `interrupted` true (docs/CAPTURE.md promises it).
#  2. kdet killed (SIGKILL) during build 2: build-2 holds some of its compiles and no
#     capture.json; capture compare of the folder names build 2 unfinished (exit 3) and never
#     compares it as a finished build.
#  3. A --clean that removes an earlier build's folder, or the folder of the build about to run:
#     that build is named failed, the others are compared, exit 3 (not exit 2 with no comparison).
#  4. A plain capture: `--finish` is refused while the capture still runs (exit 2, and the capture
#     is left alone); killed (SIGKILL), its folder compares as unfinished (exit 3), never as a
#     finished capture, until `--finish` finishes it.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
need_fakes libfakenvvm.so
[[ -x $CL/capture_nvvm_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# slow.sh TAG STOP: a build that compiles, and in build STOP then hangs after its first compile.
cat >"$T/slow.sh" <<EOF
n=\$(( \$(cat "$T/\$1.n" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/\$1.n"
"$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo || exit
if [ \$n = "\$2" ]; then touch "$T/\$1.started"; exec sleep 60; fi
"$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
EOF

# run_until TAG STOP SIGNAL: kdet capture --builds 3 into $T/TAG, sent SIGNAL once build STOP
# hangs; sets rc.
run_until() {
  set +e
  "$KDET" capture --builds 3 --out "$T/$1" --json "$T/$1.json" -- sh "$T/slow.sh" "$1" "$2" >"$T/$1.out" 2>&1 &
  local pid=$! i
  for i in $(seq 600); do [[ -e $T/$1.started ]] && break; sleep 0.05; done
  [[ -e $T/$1.started ]] || fail "$1: build $2 never started"
  kill "-$3" "$pid"
  wait "$pid"
  rc=$?
  set -e
}

# 1. Interrupted before two builds ran: the report is written all the same.
for case in "t1 1 TERM" "t2 2 TERM" "i2 2 INT"; do
  read -r tag stop sig <<<"$case"
  run_until "$tag" "$stop" "$sig"
  expect_eq "$tag: exit" "$rc" 130
  [[ -s $T/$tag.json ]] || { cat "$T/$tag.out"; fail "$tag: no --json file after SIG$sig during build $stop"; }
  expect_eq "$tag: JSON" "$(json_eval "$T/$tag.json" 'd["interrupted"], d["exit_code"], len(d["builds"]), len(d["kernels"])')" \
    "(True, 130, $((stop - 1)), 0)"
  grep -q "interrupted" "$T/$tag.out" || fail "$tag: the summary does not say interrupted"
  [[ -d $T/$tag/build-$stop ]] && fail "$tag: the interrupted build's folder was kept"
done
wait_no_pids 10 sleep || fail "a pipeline outlived kdet"

# 2. kdet killed during build 2: its folder keeps a compile and no capture.json.
run_until k 2 KILL
expect_eq "killed: exit" "$rc" 137
wait_no_pids 10 sleep || fail "the killed build's pipeline outlived kdet"
[[ -d $T/k/build-2/raw/records && ! -e $T/k/build-2/capture.json ]] || fail "build 2 was not left half-done"
expect_exit 3 "$KDET" capture compare "$T/k" --json "$T/k.json"
expect_output 'FAILED +build 2 \(.*/k/build-2\): unfinished: it has no capture.json'
expect_output 'nothing compared: 1 of 2 builds left to compare'
expect_eq "killed: JSON" "$(json_eval "$T/k.json" '[("not_compared" in b) for b in d["builds"]], len(d["kernels"])')" \
  "([False, True], 0)"

# 3. --clean removes build 1's folder before build 2: builds 2 and 3 are compared, build 1 failed.
expect_exit 3 "$KDET" capture --builds 3 --out "$T/c" --json "$T/c.json" \
  --clean "[ -d '$T/c/build-2' ] && rm -rf '$T/c/build-1'; true" -- \
  "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
expect_output 'FAILED +build 1 \(.*/c/build-1\): its folder is gone or replaced since the build ran'
expect_output '0 of 1 kernel differ across 2 builds'
expect_eq "clean: JSON" "$(json_eval "$T/c.json" '[k["builds"] for k in d["kernels"]], d["exit_code"]')" "([[2, 3]], 3)"
# The --clean of build 2 removes build 2's own folder, made just before it.
expect_exit 3 "$KDET" capture --builds 3 --out "$T/d" --json "$T/d.json" \
  --clean "rm -rf '$T/d/build-2'; true" -- \
  "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
expect_output 'FAILED +build 2 .*its folder could not be made or written'
expect_eq "clean own: JSON" "$(json_eval "$T/d.json" '[k["builds"] for k in d["kernels"]], d["exit_code"]')" "([[1, 3]], 3)"

# 4. A plain capture that hangs after its first compile.
set +e
"$KDET" capture --out "$T/live" -- sh "$T/slow.sh" live 1 >"$T/live.out" 2>&1 &
pid=$!
set -e
for i in $(seq 600); do [[ -e $T/live.started ]] && break; sleep 0.05; done
[[ -e $T/live.started ]] || fail "the plain capture never started its pipeline"
expect_exit 2 "$KDET" capture --finish --out "$T/live"
expect_output "a kdet capture \\(pid $pid\\) is still writing it"
[[ ! -e $T/live/bundles && ! -e $T/live/manifest.toml ]] || fail "--finish wrote into a live capture"
kill -KILL "$pid"
wait "$pid" || true
wait_no_pids 10 sleep || fail "the plain capture's pipeline outlived kdet"
expect_exit 3 "$KDET" capture compare "$T/live" "$T/c/build-2"
expect_output 'FAILED +build 1 \(.*/live\): unfinished: it has no capture.json, which kdet capture writes'
# Finished with --finish once the killed capture's processes are gone (its guard exits after it).
for i in $(seq 100); do
  set +e
  "$KDET" capture --finish --out "$T/live" >"$T/out" 2>&1
  rc=$?
  set -e
  grep -q 'is still writing it' "$T/out" || break
  sleep 0.1
done
expect_eq "--finish after the kill" "$rc" 0
expect_exit 0 "$KDET" capture compare "$T/live" "$T/c/build-2"
echo "capture_builds_stopped: ok"
