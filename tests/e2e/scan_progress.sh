#!/usr/bin/env bash
# tier: quick threads
# scan_progress.sh: the progress of `kdet scan --progress` (printed by the command from the
# scheduler's callbacks, never by the scheduler) counts every job, shows runs, runs per second,
# elapsed time and ETA in m:ss, and goes to stderr only; off a terminal it is plain lines (no
# \r, no escape codes) ending with the last one. Without --progress off a terminal, scan and
# run print no progress; -q prints neither it nor the start line.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib/common.bash"
printf 'kernel a\n' >"$T/a.txt"
printf 'kernel b\n' >"$T/b.txt"
printf '#!/bin/sh\ncat "$1" >"$2"\n' >"$T/cc.sh"
chmod +x "$T/cc.sh"
cat >"$T/m.toml" <<TOML
name = "progress"
inputs = ["$T/*.txt"]
[option_sets]
plain = []
[[compiler]]
name = "copy"
backend = "exec"
command = "$T/cc.sh {input} {output}"
[budget]
max_runs = 6
first_round = 3
TOML
"$KDET" scan "$T/m.toml" --db "$T/p.db" --jobs 2 --progress >"$T/stdout" 2>"$T/stderr" || {
  cat "$T/stderr" >&2
  fail "scan exited $?"
}
grep -q '^kdet scan: 2 jobs' "$T/stderr" || { cat "$T/stderr" >&2; fail "no start line"; }
grep -Eq '^\[2/2 jobs\] 0 varying, 12 runs, [0-9]+\.[0-9] runs/s, elapsed [0-9]+:[0-5][0-9], ETA 0:00$' \
  "$T/stderr" || { cat -v "$T/stderr" >&2; fail "the last progress line lacks jobs, runs, rate, elapsed or ETA"; }
LC_ALL=C grep -q $'[\r\033]' "$T/stderr" && { cat -v "$T/stderr" >&2; fail "\\r or ESC in progress off a terminal"; }
! grep -q 'jobs\]' "$T/stdout" || fail "the progress line went to stdout"
"$KDET" scan "$T/m.toml" --db "$T/n.db" --jobs 2 >"$T/stdout" 2>"$T/stderr" || fail "scan exited $?"
! grep -q 'jobs\]' "$T/stderr" || { cat -v "$T/stderr" >&2; fail "progress off a terminal without --progress"; }
"$KDET" run "$T/a.txt" --cmd "$T/cc.sh {input} {output}" -n 3 >"$T/stdout" 2>"$T/stderr" ||
  fail "run exited $?"
LC_ALL=C grep -q $'[\r\033]' "$T/stderr" "$T/stdout" && { cat -v "$T/stderr" >&2; fail "\\r or ESC from kdet run off a terminal"; }
"$KDET" scan "$T/m.toml" --db "$T/q.db" --jobs 2 -q >"$T/stdout" 2>"$T/stderr" ||
  fail "quiet scan exited $?"
[[ ! -s $T/stderr ]] || { cat "$T/stderr" >&2; fail "-q printed to stderr"; }
echo "scan_progress: PASS"
