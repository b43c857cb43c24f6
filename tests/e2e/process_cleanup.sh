#!/usr/bin/env bash
# tier: slow
# process_cleanup.sh: nothing outlives kdet. kdet run, explain, exec (with and
# without --fix pid) and scan are killed with SIGTERM, SIGINT or SIGKILL at a
# random moment while hostile compilers run (one hangs, one ignores SIGTERM, one
# leaves a setsid'd child holding stdout, one double-forks, a library that hangs
# in-process). After each kill: kdet must end within 10 s, and no process of the
# test may be left, told by the marker in the environment of everything this
# test starts (test_pids in lib/common.bash; never a machine-wide search). After
# all tries, the next kdet start must leave no kdet temp folder behind.
# KDET_CLEANUP_TRIES (default 24) and KDET_CLEANUP_SEED replay or widen it.
source "$(dirname "$0")/lib/common.bash" || exit 2
[[ -n ${T:-} && -d $T ]] || { echo "no private temp folder" >&2; exit 2; } # never write elsewhere

tries=${KDET_CLEANUP_TRIES:-24}
seed=${KDET_CLEANUP_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
printf 'line one\nline two\n' >"$T/in.ll"
IN=$T/in.ll

# Hostile fakes. Each answers --version at once, so loading is quick and the
# kills land while compiles run.
fake() { # fake NAME BODY
  printf '#!/bin/sh\n[ "$1" = --version ] && { echo "%s 1.0"; exit 0; }\n%s\n' "$1" "$2" >"$T/$1"
  chmod +x "$T/$1"
}
fake hang 'sleep 1000'
fake ignterm "trap '' TERM; sleep 1000"
fake setsid_out 'setsid sleep 1000 & sleep 0.2; echo "$$"'
fake dfork '( sleep 1000 & ) ; ( setsid sh -c "sleep 1000 & sleep 1000" & ) ; sleep 0.3; echo x'
fakes=(hang ignterm setsid_out dfork)
lib=${KDET_FAKES_DIR:+$KDET_FAKES_DIR/libfakenvvm.so}
[[ -n $lib && -f $lib ]] || lib=

scan_n=0
command_for() { # command_for MODE FAKE: sets cmd=(...)
  local f=$T/$2
  case $1 in
  run) cmd=("$KDET" run "$IN" --cmd "$f {input}" -n 8 -j 2 --timeout 30) ;;
  run-pid) cmd=("$KDET" run "$IN" --cmd "$f {input}" -n 8 -j 2 --timeout 30 --pid fixed) ;;
  run-lib) cmd=("$KDET" run "$IN" --lib "$lib" -n 8 -j 2 --timeout 30 -- -fake-mode=hang) ;;
  explain) cmd=("$KDET" explain "$IN" --cmd "$f {input}" -n 8 --timeout 30) ;;
  exec) cmd=("$KDET" exec --deterministic -- "$f" "$IN") ;;
  exec-pid) cmd=("$KDET" exec --deterministic --fix pid -- "$f" "$IN") ;;
  scan)
    scan_n=$((scan_n + 1))
    cat >"$T/scan$scan_n.toml" <<TOML
inputs = ["$IN"]
[[compiler]]
name = "hostile"
backend = "exec"
command = "$f {input}"
[budget]
max_runs = 8
timeout = 30
TOML
    cmd=("$KDET" scan "$T/scan$scan_n.toml" --db "$T/scan$scan_n.db")
    ;;
  esac
}

# Outcomes are attributed to the compiler's own end, promptly.
elapsed() { python3 -c 'import sys,time; print(time.time() - float(sys.argv[1]))' "$1"; }
fake stdout_held 'setsid sleep 1000 & echo same'
t0=$(date +%s.%N)
expect_exit 0 "$KDET" run "$IN" --cmd "$T/stdout_held {input}" -n 3 --timeout 20
(($(elapsed "$t0" | cut -d. -f1) < 10)) || fail "a compiler that exited 0 leaving a child on stdout took $(elapsed "$t0") s"
# Two probes and two runs, each 1 s (--timeout) and 1 s (the grace after SIGTERM, which the
# compiler ignores): 8 s of waiting, 8.3 s in all unsanitized; a bound of 10 s left too little
# for a sanitized kdet on a loaded machine. Waiting for the compiler itself would take 1000 s.
t0=$(date +%s.%N)
expect_exit 3 "$KDET" run "$IN" --cmd "$T/ignterm {input}" -n 2 --timeout 1
(($(elapsed "$t0" | cut -d. -f1) < 16)) || fail "2 runs of a compiler ignoring SIGTERM with --timeout 1 took $(elapsed "$t0") s"
expect_output "timed-out"
if [[ -n $lib && -f $KDET_FAKES_DIR/libforkhold.so ]]; then
  # A library crash while a detached child of the worker holds its reply pipe is a crash.
  t0=$(date +%s.%N)
  expect_exit 3 "$KDET" run "$IN" --lib "$lib" --env LD_PRELOAD="$KDET_FAKES_DIR/libforkhold.so" \
    --env FAKE_FORKHOLD=1 -n 2 --timeout 20 -- -fake-mode=crash
  expect_output 'crashed'
  (($(elapsed "$t0" | cut -d. -f1) < 10)) || fail "a crash with the pipe held took $(elapsed "$t0") s"
fi
[[ -z $(test_pids) ]] || fail "processes left by the attribution checks: $(echo $(test_pids))"

modes=(run run-pid explain exec exec-pid scan)
[[ -n $lib ]] && modes+=(run-lib)
pidns=1
"$KDET" exec --deterministic --fix pid -- true >/dev/null 2>&1 || pidns=0
signals=(TERM INT KILL)
# env --default-signal (coreutils 8.31) starts kdet with SIGINT at its default; without it a
# SIGINT sent before kdet sets its handler can be lost (see below), so the test says so.
sigint_default=(env --default-signal=INT)
"${sigint_default[@]}" true 2>/dev/null || {
  echo "process_cleanup: note: env has no --default-signal; an early SIGINT may be reported as a HANG"
  sigint_default=()
}
leftovers=0 hangs=0
# After a try: waits up to 3 s for the test's processes to go; any still there are named (after
# WHAT), counted in `leftovers` and killed.
count_left() {
  local left=() w p
  for ((w = 0; w < 30; w++)); do
    mapfile -t left < <(test_pids)
    ((${#left[@]} == 0)) && return
    sleep 0.1
  done
  echo "LEFT: $1: ${#left[@]} processes:" >&2
  for p in "${left[@]}"; do echo "  $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >&2; done
  leftovers=$((leftovers + ${#left[@]}))
  kill -KILL "${left[@]}" 2>/dev/null || true
}
for ((i = 1; i <= tries; i++)); do
  mode=${modes[RANDOM % ${#modes[@]}]}
  [[ $pidns == 0 && $mode == *-pid ]] && mode=${mode%-pid}
  f=${fakes[RANDOM % ${#fakes[@]}]}
  sig=${signals[RANDOM % 3]}
  delay=$(printf '0.%03d' $((100 + RANDOM % 900)))
  command_for "$mode" "$f"
  # SIGINT at its default, as a Ctrl-C finds it: bash starts a background job with SIGINT
  # ignored, so a SIGINT sent before kdet set its handler (a delay of 0.1 s can come first
  # under a sanitizer or on a loaded machine) was lost, and kdet went on for minutes (a HANG).
  "${sigint_default[@]}" "${cmd[@]}" >"$T/out.$i" 2>&1 &
  kpid=$!
  sleep "$delay"
  kill -"$sig" "$kpid" 2>/dev/null || true
  for ((w = 0; w < 100; w++)); do
    kill -0 "$kpid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$kpid" 2>/dev/null; then
    echo "HANG: try $i ($mode, $f, SIG$sig after ${delay}s): kdet still runs 10 s later" >&2
    hangs=$((hangs + 1))
    kill -KILL "$kpid" 2>/dev/null || true
  fi
  { wait "$kpid"; } 2>/dev/null || true
  count_left "try $i ($mode, $f, SIG$sig after ${delay}s)"
done

# SIGKILL while kdet asks the compiler's --version (before any worker): a compiler that starts
# a setsid'd child as it answers must not leave it behind (the probe runs under a guard).
printf '#!/bin/sh\nsetsid sleep 1000 &\n[ "$1" = --version ] && { sleep 2; echo slowv 1.0; exit 0; }\necho x >"$2"\n' \
  >"$T/slowversion"
chmod +x "$T/slowversion"
for ((k = 1; k <= 3; k++)); do
  "$KDET" run "$IN" --backend exec --cmd "$T/slowversion {input} {output}" -n 4 --unnamed natural \
    -q >"$T/out.v$k" 2>&1 &
  kpid=$!
  sleep 0.5
  kill -KILL "$kpid" 2>/dev/null || true
  { wait "$kpid"; } 2>/dev/null || true
  count_left "SIGKILL during the --version probe, try $k"
done

# The next start sweeps what the killed ones left in TMPDIR.
"$KDET" --version >/dev/null
mapfile -t dirs < <(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'kdet-*')
echo "process_cleanup: seed $seed, $tries tries, $leftovers processes left, $hangs hangs, ${#dirs[@]} temp folders left after the next start"
((${#dirs[@]} == 0)) || fail "temp folders left: ${dirs[*]}"
((leftovers == 0 && hangs == 0)) || fail "$leftovers processes left, $hangs hangs (replay with KDET_CLEANUP_SEED=$seed)"
echo "ok: process cleanup"
