#!/usr/bin/env bash
# tier: quick
# adversary_empty_values.sh: an option given an empty value ('--json ""', an unset
# shell variable) is a usage error naming the option, never read as "not given"
# (which ran with the default: '--process ""' varied the process, '--json ""'
# wrote nothing, and all exited 0). Compiler options after -- may be empty. Beside: a
# --skip name that is no factor, an out-of-range --stress-seed, and a compiler's escape
# sequences in kdet run's report (a red team's findings).
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib/common.bash"
printf 'kernel\n' >"$T/k.txt"
printf '#!/bin/sh\ncat "$1" >"$2"\n' >"$T/cc.sh"
chmod +x "$T/cc.sh"
run=(run "$T/k.txt" --backend exec --cmd "$T/cc.sh {input} {output}" -n 2 -q)
for opt in --json --out --seed --lib --max-output --output-ext --process --heap --aslr --path --cwd \
  --tmpdir --time --locale --umask --pid --threadvars; do
  expect_exit 2 "$KDET" "${run[@]}" "$opt" ""
  expect_output "^kdet: error: $opt: an empty value is not valid"
done
expect_exit 2 "$KDET" explain "$T/k.txt" --backend exec --cmd "$T/cc.sh {input} {output}" --skip ""
expect_output "--skip: an empty value is not valid.*kdet explain --help"
# A name that is no factor (a typo) is refused, not ignored; one that does not apply here is not.
expect_exit 2 "$KDET" explain "$T/k.txt" --backend exec --cmd "$T/cc.sh {input} {output}" --skip alsr,zzz
expect_output "--skip: 'alsr' is not a factor; give some of: .*aslr"
expect_exit 2 "$KDET" compare "$T/none.db" "$T/none.db" --stress --stress-seed 99999999999999999999
expect_output "stress-seed"
expect_exit 2 "$KDET" compare "$T/none.db" "$T/none.db" --stress --stress-seed -1
# A compiler's escape sequences reach no terminal through kdet run's report.
printf '#!/bin/sh\n[ "$1" = --version ] && { echo c 1; exit 0; }\nprintf "\\033]0;PWNED\\007\\033[2Jsays hi\\n" >&2; exit 1\n' >"$T/esc.sh"
chmod +x "$T/esc.sh"
expect_exit 3 "$KDET" run "$T/k.txt" --backend exec --cmd "$T/esc.sh {input} {output}" -n 2
! grep -q $'\e' "$T/out" || fail "a compiler's ESC reached kdet run's output raw"
expect_output 'error +\\x1b\]0;PWNED\\x07\\x1b\[2Jsays hi'
expect_exit 2 "$KDET" cache gc --dir "" --max-size 1G
expect_output "--dir: an empty value is not valid.*kdet cache gc --help"
expect_exit 2 "$KDET" diff "$T/k.txt" "$T/k.txt" --json ""
expect_output "--json: an empty value"
# Empty positionals still reach the compiler; flags are untouched.
expect_exit 0 "$KDET" "${run[@]}" --stop-on-variant -- ""
echo "adversary_empty_values: PASS"
