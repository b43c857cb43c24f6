#!/usr/bin/env bash
# tier: quick
# kdet capture compare on capture folders planted as an adversary would (they travel as CI
# artifacts): nothing in them is followed or taken on trust, and nothing is skipped silently.
#  1. A capture.json that is garbage, a link, or too large makes how that build's pipeline
#     ended unknown: a failed build (exit 3), never "pipeline not seen" for a build that said
#     it failed.
#  2. A build-K that is a link or a nested --builds folder is named, not skipped.
#  3. raw/records linked to / is a problem (exit 3), never "0 compiles".
#  4. Terminal control bytes (ESC, BEL) from a record log are printed escaped by compare and
#     by capture --finish, as the HTML report escapes them.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
need_fakes libfakenvvm.so
[[ -x $CL/capture_nvvm_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# Two builds, the second of which fails (exit 7) after its compile.
cat >"$T/fail2.sh" <<EOF
n=\$(( \$(cat "$T/n" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/n"
"$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo || exit
[ \$n != 2 ] || exit 7
EOF
expect_exit 3 "$KDET" capture --builds 2 --out "$T/b" -- sh "$T/fail2.sh"
expect_exit 3 "$KDET" capture compare "$T/b"
expect_output 'capture 2 .*: the pipeline exited 7'
# fresh COPY: a copy of the --builds folder to plant in.
fresh() { rm -rf "$T/p"; cp -a "$T/b" "$T/p"; }

# 1. capture.json: garbage, a link to build 1's (exit 0), a folder, 2 GiB (sparse).
for plant in garbage link folder huge; do
  fresh
  j=$T/p/build-2/capture.json
  rm -f "$j"
  case $plant in
  garbage) printf '\0\0{not json' >"$j" ;;
  link) ln -s "$T/b/build-1/capture.json" "$j" ;;
  folder) mkdir "$j" ;;
  huge) truncate -s 2G "$j" ;;
  esac
  expect_exit 3 "$KDET" capture compare "$T/p" --json "$T/p.json"
  expect_output "FAILED +build 2 \(.*/p/build-2\): its capture.json (is not JSON|is a link|is not a regular file|is 2\.0 GiB).*: how its pipeline ended is not known"
  grep -q 'pipeline not seen' "$T/out" && fail "$plant: read as 'pipeline not seen'"
  expect_eq "$plant: status" "$(json_eval "$T/p.json" 'd["builds"][1]["pipeline"]["status"], "status_problem" in d["builds"][1]')" \
    "('unknown (capture.json unreadable)', True)"
done

# 2. build-3 a link to a copy of build 1; then build-3 a --builds folder of its own. In a
#    --builds folder whose two builds passed.
expect_exit 0 "$KDET" capture --builds 2 --out "$T/ok" -- "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
fresh() { rm -rf "$T/p"; cp -a "$T/ok" "$T/p"; }
fresh
cp -a "$T/ok/build-1" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/p/build-3"
expect_exit 3 "$KDET" capture compare "$T/p" --json "$T/p.json"
expect_output 'FAILED +build 3 \(.*/p/build-3\): is a link \(kdet never follows a link inside a capture folder\); not compared'
expect_output 'build 3 +not compared'
rm "$T/p/build-3"
mkdir "$T/p/build-3"
cp -a "$T/ok/build-1" "$T/p/build-3/build-1"
expect_exit 3 "$KDET" capture compare "$T/p"
expect_output 'FAILED +build 3 \(.*/p/build-3\): holds no capture \(no raw/records folder\); not compared'
# A capture under a name kdet never gives (build-1x, build--1, build-): named, never skipped;
# a build-logs folder that holds no capture is no build.
rm -rf "$T/p/build-3"
for odd in build-1x build--1 build-; do
  cp -a "$T/ok/build-1" "$T/p/$odd"
  expect_exit 3 "$KDET" capture compare "$T/p"
  expect_output "FAILED +build 3 \\(.*/p/$odd\\): not a name kdet gives a build"
  rm -rf "${T:?}/p/$odd"
done
mkdir "$T/p/build-logs"
expect_exit 0 "$KDET" capture compare "$T/p"
rm -rf "$T/p/build-logs"
# Build 1's record logs removed after it ended: its capture.json still lists the compiles.
fresh
rm -f "$T/p/build-1/raw/records/"*
"$KDET" capture compare "$T/p" >"$T/out" 2>&1 || true
expect_output 'problem: capture.json lists 1 compiles, the records hold 0: 1 record\(s\) removed or unreadable'

# 3. raw/records of build 1 linked to /: a problem, never 0 compiles that compare.
fresh
rm -rf "$T/p/build-1/raw/records"
ln -s / "$T/p/build-1/raw/records"
expect_exit 3 "$KDET" capture compare "$T/p" --json "$T/p.json"
expect_output 'FAILED +build 1 \(.*/p/build-1\): its raw/records is behind a link'
expect_output 'nothing compared: 1 of 2 builds left to compare'
expect_eq "kernels" "$(json_eval "$T/p.json" 'len(d["kernels"]), d["builds"][0]["compiles"]')" "(0, 0)"

# 4. ESC and BEL in a record log: an OSC that would retitle the terminal, a clear screen.
evil=$'\e]0;pwned\a\e[2J\e[8mhidden'
expect_exit 0 "$KDET" capture --out "$T/c1" -- "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
expect_exit 0 "$KDET" capture --out "$T/c2" -- "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
for c in c1 c2; do printf '%s\n' "$evil" >>"$(compgen -G "$T/$c/raw/records/*.log" | head -1)"; done
expect_exit 0 "$KDET" capture compare "$T/c1" "$T/c2" --color always
expect_output 'problem: .*\.log: unreadable line .\\x1b\]0;pwned\\x07\\x1b\[2J\\x1b\[8mhidden'
grep -q $'\a' "$T/out" && fail "compare printed a BEL"
grep -q $'\e]\|\e\[2J\|\e\[8m' "$T/out" && fail "compare printed the planted escape sequences"
grep -q $'\e\[1m' "$T/out" || true # kdet's own colour stays (only where a kernel is listed)
rm -rf "$T/c2/bundles" "$T/c2/manifest.toml"
expect_exit 0 "$KDET" capture --finish --out "$T/c2"
expect_output 'unreadable line .\\x1b\]0;pwned\\x07'
grep -q $'\a\|\e' "$T/out" && fail "--finish printed control bytes"
echo "capture_compare_hostile: ok"
