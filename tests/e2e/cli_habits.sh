#!/usr/bin/env bash
# cli_habits.sh: usage errors name the option and the fix and exit 2 (unknown root option,
# compiler options before --, a repeated option, a flag given a value, a missing value or
# argument, a bad choice); `kdet help [CMD]` prints the help; `kdet exec` exits 127 for a
# command that does not exist and 126 for one that cannot be run.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib/common.bash"
touch "$T/k.ll"
expect_exit 2 "$KDET" --bogus
expect_output "kdet does not take --bogus before a command.*commands are: run"
expect_exit 2 "$KDET"
expect_output "no command given; commands are: run"
expect_exit 2 "$KDET" run "$T/k.ll" -arch=compute_90a
expect_output "put the compiler's options after \`--\`: kdet run \[OPTIONS\] INPUT -- -arch=compute_90a"
expect_exit 2 "$KDET" run --runs=5 --runs=6 "$T/k.ll"
expect_output "--runs is given more than once; give it once"
expect_exit 2 "$KDET" run --runs=abc "$T/k.ll"
expect_output "--runs: 'abc' is not valid; give a whole number"
expect_exit 2 "$KDET" run "$T/k.ll" --runs
expect_output "--runs needs a value"
expect_exit 2 "$KDET" run --quiet=abc "$T/k.ll"
expect_output "--quiet is a flag and takes no value"
expect_exit 2 "$KDET" run
expect_output "kdet run needs INPUT"
expect_exit 2 "$KDET" run --backend=abc "$T/k.ll"
expect_output "--backend: 'abc' is not valid; use one of nvvm, nvrtc, nvjitlink, exec"
expect_exit 2 "$KDET" cache
expect_output "kdet cache needs a subcommand: .*stats"
expect_exit 2 "$KDET" compare a b c
expect_output "kdet compare: unexpected argument 'c'"
if grep -Eq "not expected|is required|At Most|Could not convert" "$T/out"; then fail "raw CLI11 text"; fi

expect_exit 0 "$KDET" help
expect_output "Usage: kdet"
expect_exit 0 "$KDET" help run
expect_output "Usage: kdet run"
expect_exit 0 "$KDET" help cache gc
expect_output "Usage: kdet cache gc"
expect_exit 2 "$KDET" help bogus
expect_output "unknown command 'bogus'"

expect_exit 127 "$KDET" exec --deterministic -- "$T/no-such-program"
expect_output "cannot run"
expect_exit 127 "$KDET" exec --deterministic -- kdet-no-such-program-in-path
printf '#!/bin/sh\necho hi\n' >"$T/not-executable"
chmod 644 "$T/not-executable"
expect_exit 126 "$KDET" exec --deterministic -- "$T/not-executable"
expect_exit 126 "$KDET" exec --deterministic -- "$T"
expect_exit 0 "$KDET" exec --help
expect_output "127 when the command is not found, 126"
echo "cli_habits: PASS"
