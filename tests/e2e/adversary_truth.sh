#!/usr/bin/env bash
# tier: slow
# adversary_truth.sh: held-out style compilers, written apart from tests/fakes, whose one
# cause of variation is known. `kdet run`'s defaults must call none of them deterministic
# (exit 1) and the plain one deterministic (exit 0); --process same/fresh must each see only
# their own regime; explain must name the cause. Then hostile compilers: a setsid'd child,
# a SIGTERM-ignoring loop, an {output} turned into a link to a (private) device node, and
# signals to kdet itself: no process of this test may be left, every outcome is recorded.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
here=$(cd "$(dirname "$0")" && pwd)
command -v cc >/dev/null || skip "no C compiler to build the fakes"
cc -O1 -o "$T/xf" "$here/adversary/exec_fake.c" 2>/dev/null || fail "exec_fake.c does not build"
cc -O1 -shared -fPIC -o "$T/libadvnvvm.so" "$here/adversary/nvvm_fake.c" || fail "nvvm_fake.c does not build"
export TMPDIR=$T/tmp # kdet's own folders and sweeps stay in this test
mkdir "$T/tmp"
printf 'kernel\n' >"$T/k.txt"
printf 'define void @k() { ret void }\n' >"$T/k.ll"
M=$KDET_E2E_MARK # in every hostile compiler's argv too: `exec --fix all` cleans the environment

# Exec compilers: every cause is caught by the defaults, with {output} and with stdout.
for m in aslr mmap libc time pwd tmpdir pid omp lang umask heap inpath cwdpid; do
  # omp: the thread-count variables take a random value of 1..cores each run, so on a 2-core
  # machine n runs all agree with probability 2^-(n-1): 3e-5 at 16 runs, 1e-14 at 48.
  n=16
  [[ $m == omp ]] && n=48
  expect_exit 1 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/xf $m {input} {output}" -n $n -q
done
for m in aslr time pid; do
  expect_exit 1 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/xf $m {input}" -n 6 -q
done
expect_exit 0 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/xf det {input} {output}" -n 6 -q
expect_exit 0 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/xf myenv {input} {output}" -n 6 -q

# A library: history inside one process, the load address across processes, the heap, time.
lib=(run "$T/k.ll" --lib "$T/libadvnvvm.so" -n 8 -q)
expect_exit 0 "$KDET" "${lib[@]}" -- -adv=det
for m in counter loadaddr2 mallocaddr time; do expect_exit 1 "$KDET" "${lib[@]}" -- -adv=$m; done
expect_exit 0 "$KDET" "${lib[@]}" --process fresh -- -adv=counter
expect_exit 1 "$KDET" "${lib[@]}" --process same -- -adv=counter
expect_exit 0 "$KDET" "${lib[@]}" --process same -- -adv=loadaddr2
expect_exit 1 "$KDET" "${lib[@]}" --process fresh -- -adv=loadaddr2

ex=(explain "$T/k.ll" --lib "$T/libadvnvvm.so" -n 10 --min-cell-runs 2 --max-cell-runs 8 --budget 40 --color never --seed 7)
expect_exit 1 timeout 120 "$KDET" "${ex[@]}" -- -adv=counter
expect_output "conclusion +EXPLAINED: varies with compile history in one process; nothing else matters"
expect_exit 1 timeout 120 "$KDET" "${ex[@]}" -- -adv=loadaddr2
# ASLR alone: the pid must not join it (libfaketime's own pid-named objects once made it).
expect_output "conclusion +EXPLAINED: varies with ASLR; nothing else matters"
expect_exit 1 timeout 120 "$KDET" "${ex[@]}" -- -adv=time
expect_output "conclusion +EXPLAINED: varies with the time; nothing else matters"
expect_exit 0 timeout 120 "$KDET" "${ex[@]}" -- -adv=det
expect_output "conclusion +NO VARIANCE SEEN: .*across processes and inside one process"
xe=(explain "$T/k.txt" --backend exec -n 10 --min-cell-runs 2 --max-cell-runs 8 --budget 40 --color never --seed 7)
expect_exit 1 timeout 120 "$KDET" "${xe[@]}" --cmd "$T/xf cwdpid {input} {output}"
expect_output "conclusion +EXPLAINED: deterministic when cwd=fixed and pid=fixed; each of the two alone makes it vary"

# Hostile compilers.
mknod "$T/zero" c 1 5 2>/dev/null || skip "mknod not permitted (needs root)"
cat >"$T/hostile.sh" <<'SH'
#!/bin/bash
out=$4
case $2 in
  noterm) trap '' TERM INT; [[ -z ${5:-} ]] || : >"$5"; while :; do sleep 0.2; done ;;
  setsid) setsid bash -c 'sleep 1000; :' "$1" & echo ok >"$out" ;;
  devlink) rm -f "$out"; ln -s "$5" "$out" ;;
esac
SH
chmod +x "$T/hostile.sh"
left() { [[ -z $(test_pids) ]] || fail "processes left: $1: $(test_pids)"; }
expect_exit 0 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/hostile.sh $M setsid {input} {output}" -n 2 -q
left "setsid child after run"
expect_exit 3 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/hostile.sh $M devlink {input} {output} $T/zero" -n 2 --color never
expect_output "character device, not a regular file"
[[ -c $T/zero ]] || fail "the device node was replaced"
start=$SECONDS
expect_exit 3 timeout 60 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/hostile.sh $M noterm {input} {output}" -n 1 --timeout 1 --color never
expect_output "timed-out"
((SECONDS - start < 15)) || fail "a SIGTERM-ignoring compiler cost $((SECONDS - start)) s for --timeout 1"
left "noterm after timeout"
expect_exit 0 timeout 60 "$KDET" exec --deterministic --fix all -- "$T/hostile.sh" $M setsid x "$T/o"
left "setsid child after exec"
for sig in TERM INT KILL; do
  for cmd in run explain; do
    rm -f "$T/started"
    "$KDET" $cmd "$T/k.txt" --backend exec --cmd "$T/hostile.sh $M noterm {input} {output} $T/started" -n 4 --timeout 50 >/dev/null 2>&1 &
    pid=$!
    # Signalled once a compile runs (kdet catches SIGTERM and SIGINT by then), not after a fixed
    # sleep, which a slow start could outlast: SIGTERM would then kill kdet (143) and SIGINT,
    # ignored by a background job of bash until kdet sets its handler, would be lost.
    for ((i = 0; i < 600; i++)); do [[ -e $T/started ]] && break; sleep 0.1; done
    [[ -e $T/started ]] || fail "$cmd: no compile started within 60 s"
    kill -$sig $pid
    set +e; wait $pid; rc=$?; set -e
    [[ $rc == 130 || $rc == 137 ]] || fail "$cmd after SIG$sig: exit $rc"
    wait_no_pids 3 || true
    left "$cmd after SIG$sig"
  done
done
"$KDET" --version >/dev/null # sweeps what the SIGKILLed ones left
[[ -z $(ls "$T/tmp") ]] || fail "kdet temporary folders left after the next start: $(ls "$T/tmp")"
echo "adversary_truth: PASS"
