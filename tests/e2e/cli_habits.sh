#!/usr/bin/env bash
# tier: quick
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

# corpus --out refuses a folder that is not empty unless --force; counts of 1 are singular.
expect_exit 0 "$KDET" corpus --out "$T/corpus" --count 1 --size small
expect_output "^wrote 1 kernel \("
if grep -Eq '\b1 (kernels|instructions|loops|helpers|barriers|pointer params)\b' "$T/out" "$T/corpus/README.txt"; then
  fail "a plural after 1"
fi
expect_exit 2 "$KDET" corpus --out "$T/corpus" --count 1
expect_output "--out .*not empty.*--force"
expect_exit 0 "$KDET" corpus --out "$T/corpus" --count 2 --force -q
[[ -f $T/corpus/gen_0001.ll ]] || fail "--force did not write"

# A manifest error about a compiler key points at the key's line; an [[expect]] pattern that
# matches nothing shows what input names look like.
mkdir "$T/m"
touch "$T/m/k.ll"
printf 'inputs = ["k.ll"]\n[[compiler]]\nname = "a"\nbackend = "nvvm"\nlib = "nope.so"\n' >"$T/m/a.toml"
expect_exit 2 "$KDET" scan "$T/m/a.toml" --db "$T/a.db"
expect_output "a.toml:5: compiler 'a': lib "
printf 'inputs = ["k.ll"]\n[[compiler]]\nname = "a"\nbackend = "nvvm"\n[[expect]]\ninput = "k"\nreason = "x"\n' >"$T/m/b.toml"
expect_exit 2 "$KDET" scan "$T/m/b.toml" --db "$T/b.db"
expect_output "b.toml:6: \\[\\[expect\\]\\] input 'k' matches none.*e.g. 'k.ll'.*'\\*.ll'"

# A failed kdet cc names no empty variant ("variant , 0 variants").
echo x >"$T/cc.in"
expect_exit 3 "$KDET" cc "$T/cc.in" -o "$T/cc.out" --dir "$T/cache" -- sh -c 'exit 1' {input}
expect_output "nothing stored"
if grep -q "variant ," "$T/out"; then fail "kdet cc names an empty variant"; fi

# Launcher mode takes nothing before the compiler: the error says where kdet's options go.
expect_exit 2 "$KDET" cc -v "$(command -v true)" -c "$T/cc.in" -o "$T/cc.o"
expect_output "not an option of kdet cc. As a launcher .*KDET_CACHE_VERBOSE=1"

# Counts of 1 are singular in every report of a one-job, one-run scan and a one-run kdet run.
echo 'x' >"$T/m/k.ll"
printf 'inputs = ["k.ll"]\n[[compiler]]\nname = "c"\nbackend = "exec"\ncommand = "cat {input}"\n[budget]\nmax_runs = 1\n' >"$T/m/one.toml"
expect_exit 0 "$KDET" scan "$T/m/one.toml" --db "$T/one.db" -j 1 --color never --progress \
  --junit "$T/one.xml" --report-html "$T/one.html"
expect_output "^kdet scan: 1 job \\(1 input, 1 compiler, 1 target, 1 option set\\), 1 at once, up to 1 run each"
cp "$T/out" "$T/scan.out"
expect_exit 0 "$KDET" run "$T/m/k.ll" --cmd 'cat {input}' --runs 1 --color never
expect_output "NO VARIANCE SEEN in 1 run \\(a rate of up to 95% could go unseen\\)"
plurals='(^|[^/.0-9])1 (jobs|inputs|compilers|targets|option sets|runs|variants|bundles|instructions)\b'
if grep -Eq "$plurals" "$T/out" "$T/scan.out" "$T/one.xml" "$T/one.html"; then
  grep -E "$plurals" "$T/out" "$T/scan.out" "$T/one.xml" "$T/one.html" >&2
  fail "a plural after 1"
fi

# A FAILED run names the compiler's first error line in the summary (real libNVVM).
if have_cuda; then
  expect_exit 3 "$KDET" run "$KDET_SOURCE_DIR/examples/nvvm/llvm7/saxpy.ll" -n 2 --color never \
    -- -arch=compute_999
  expect_output "^error     .*-arch=compute_999 is an unsupported option \\(run 1\\)"
else
  echo "cli_habits: libNVVM absent: the FAILED summary line is not checked"
fi
echo "cli_habits: PASS"
