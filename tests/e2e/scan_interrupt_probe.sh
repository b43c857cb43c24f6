#!/usr/bin/env bash
# tier: quick
# SIGTERM or SIGINT to `kdet scan` while it probes its compilers' levels (before any run) is
# handled as in the runs: exit 130 with the "interrupted ... resume" line, the compiler killed,
# kdet's temporary folders removed, the database left without -wal or -shm, its scan recorded as
# interrupted, and the same command resumes it. (SIGTERM killed kdet there: exit 143, no message,
# its folders left behind; SIGINT, which bash leaves ignored in a background job, was lost.)
source "$(dirname "$0")/lib/common.bash"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
cp "$EX/nvvm/llvm7/saxpy.ll" "$T/"
# Hangs (as long as $T/hang exists) after saying it has started; otherwise copies its input.
cat >"$T/cc.sh" <<SH
#!/bin/sh
if [ "\$1" = "--version" ]; then echo "cc 1.0"; exit 0; fi
if [ -e "$T/hang" ]; then : >"$T/started"; exec sleep 1000; fi
cp "\$1" "\$2"
SH
chmod +x "$T/cc.sh"
{ echo 'inputs = ["saxpy.ll"]'
  printf '[[compiler]]\nname = "cc"\nbackend = "exec"\ncommand = "%s {input} {output}"\noutput_ext = "ptx"\n' "$T/cc.sh"
  printf '[budget]\nmax_runs = 4\ntimeout = 60\n'; } >"$T/m.toml"

for sig in TERM INT; do
  db=$T/$sig.db
  rm -f "$T/started"
  : >"$T/hang"
  "$KDET" scan "$T/m.toml" --db "$db" >"$T/out" 2>&1 &
  pid=$!
  # The first probe compile runs: signalled then, not after a fixed sleep.
  for ((i = 0; i < 600; i++)); do [[ -e $T/started ]] && break; sleep 0.05; done
  [[ -e $T/started ]] || { cat "$T/out" >&2; fail "the probe compile did not start within 30 s"; }
  kill -$sig $pid
  set +e; wait $pid; rc=$?; set -e
  [[ $rc == 130 ]] || { cat "$T/out" >&2; fail "kdet scan after SIG$sig in the probes: exit $rc, want 130"; }
  expect_output "kdet scan: interrupted; 0 runs recorded in $db\. Run the same command again to resume\."
  grep -q "at most .* planned" "$T/out" && fail "the start lines were printed for runs that never started"
  wait_no_pids 5 || fail "the compiler outlived kdet scan after SIG$sig: $(test_pids)"
  left=$(ls -A "$T/tmp")
  [[ -z $left ]] || fail "kdet scan left its temporary folders after SIG$sig: $left"
  [[ ! -e $db-wal && ! -e $db-shm ]] || fail "the database's -wal or -shm was left after SIG$sig"
  expect_eq "scans after SIG$sig" "$(sql "$db" "select status from scans")" interrupted
  # Resumed: the same command (the compiler no longer hangs) finishes the planned job.
  rm "$T/hang"
  expect_exit 0 "$KDET" scan "$T/m.toml" --db "$db" -q
  expect_eq "scans after the resume" "$(sql "$db" "select status from scans order by id" | tr '\n' ' ')" \
    "interrupted finished "
  expect_eq "jobs done" "$(sql "$db" "select count(*) from jobs where done = 1")" 1
done
echo "$NAME: ok"
