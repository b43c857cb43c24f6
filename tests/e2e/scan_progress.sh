#!/usr/bin/env bash
# scan_progress.sh: the progress line of `kdet scan --progress` (printed by the command from
# the scheduler's callbacks, never by the scheduler) counts every job, ends with a newline,
# and goes to stderr only; -q prints neither it nor the start line.
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
grep -q $'\\[2/2 jobs\\] 0 vary, none left$' "$T/stderr" ||
  { cat -v "$T/stderr" >&2; fail "the last progress line does not count both jobs, or lacks its newline"; }
! grep -q 'jobs\]' "$T/stdout" || fail "the progress line went to stdout"
"$KDET" scan "$T/m.toml" --db "$T/q.db" --jobs 2 -q >"$T/stdout" 2>"$T/stderr" ||
  fail "quiet scan exited $?"
[[ ! -s $T/stderr ]] || { cat "$T/stderr" >&2; fail "-q printed to stderr"; }
echo "scan_progress: PASS"
