#!/usr/bin/env bash
# tier: slow
# kdet reduce: a fake whose output varies only while the input holds a planted
# construct (fake_cc planted), buried in generated kernels. The reduction must
# end small, still varying, and still compiling with the real libNVVM; an input
# that does not vary or does not compile gets exit 2; an interrupt keeps the best.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
CC="$FAKES/fake_cc planted {input} {output}"

# plant IN OUT: a global the kernel stores to, named kdet_planted (typed-pointer IR).
plant() {
  python3 - "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
out, done = [], False
for l in lines:
    if l.startswith("define ") and not any(x.startswith("@kdet_planted") for x in out):
        out.append("@kdet_planted = internal addrspace(1) global i32 0, align 4")
    out.append(l)
    if not done and l == "entry:" and any(x.startswith("define void @") for x in out[-3:]):
        out.append("  store volatile i32 1, i32 addrspace(1)* @kdet_planted, align 4")
        done = True
open(sys.argv[2], "w").write("\n".join(out))
PY
}
size_of() { stat -c %s "$1"; }

"$KDET" corpus -o "$T/c" -n 1 --size large -q
plant "$T/c/gen_0000.ll" "$T/big.ll"
"$KDET" corpus -o "$T/m" -n 1 --size medium --seed 3 -q
plant "$T/m/gen_0000.ll" "$T/med.ll"
grep -q 'store volatile i32 1, i32 addrspace(1)\* @kdet_planted' "$T/big.ll" || fail "planting"

# Reduce a large kernel: at least 85 % smaller, still varying under the fake.
expect_exit 0 "$KDET" reduce "$T/big.ll" --cmd "$CC" --unnamed natural -o "$T/small.ll"
expect_output 'reduced +[0-9]+ -> [0-9]+ bytes'
orig=$(size_of "$T/big.ll")
small=$(size_of "$T/small.ll")
((small * 100 <= orig * 15)) || fail "reduced to $small of $orig bytes (want <= 15 %)"
grep -q kdet_planted "$T/small.ll" || fail "the planted construct is gone"
expect_exit 1 "$KDET" run "$T/small.ll" --cmd "$CC" --unnamed natural -n 8
# The reproducer folder: the input, the command, the rate with its interval, the runs, a diff.
R=$T/small.ll.repro
cmp -s "$R/small.ll" "$T/small.ll" || fail "repro input differs from SMALL"
grep -q '^kdet run small.ll ' "$R/README.md" || fail "README lacks the kdet run command"
grep -Eq '95 % interval [0-9.]+ % \.\. [0-9.]+ %' "$R/README.md" || fail "README lacks the interval"
[[ $(json_eval "$R/run/result.json" '"environment" in d') == True ]] || fail "no environment record"
grep -q 'text differs' "$R/diff.txt" || fail "diff.txt"
# The real libNVVM still compiles the result (typed-pointer IR for compute_90a).
if have_cuda; then
  expect_exit 0 "$KDET" run "$T/small.ll" --unnamed natural -n 1 -- -arch=compute_90a
fi

# A result that varied while reducing but gives one outcome in its final runs is no reproducer:
# exit 1, said on stderr and in the README, and no diff.txt listed. (This compiler varies on the
# planted construct except where the input lies in a .repro folder: the final runs' place.)
cat >"$T/calm_in_repro.sh" <<SH
#!/bin/sh
case "\$1" in
  --version) echo "calm-in-repro 1"; exit 0 ;;
  *.repro/*) exec "$FAKES/fake_cc" echo "\$1" "\$2" ;;
esac
exec "$FAKES/fake_cc" planted "\$1" "\$2"
SH
chmod +x "$T/calm_in_repro.sh"
expect_exit 1 "$KDET" reduce "$T/med.ll" --cmd "$T/calm_in_repro.sh {input} {output}" --unnamed natural \
  -o "$T/calm.ll" --final-runs 8
expect_output 'final +[0-9]+ runs: 0 differing, rate 0.0 %, 1 distinct outcomes'
expect_output 'calm.ll did not vary in its [0-9]+ final runs'
grep -Eq '^# Reduced input: it did not vary in its [0-9]+ final runs' "$T/calm.ll.repro/README.md" ||
  fail "the README calls a result that did not vary a reproducer"
grep -q 'diff.txt' "$T/calm.ll.repro/README.md" && fail "the README lists a diff.txt not written"
[[ ! -e $T/calm.ll.repro/diff.txt ]] || fail "diff.txt written without two variants"

# -j 2 tests candidates in parallel and ends as small as -j 1.
expect_exit 0 "$KDET" reduce "$T/med.ll" --cmd "$CC" --unnamed natural -o "$T/j1.ll" -j 1
expect_exit 0 "$KDET" reduce "$T/med.ll" --cmd "$CC" --unnamed natural -o "$T/j2.ll" -j 2
(($(size_of "$T/j2.ll") <= $(size_of "$T/j1.ll"))) ||
  fail "-j 2 gave $(size_of "$T/j2.ll") bytes, -j 1 $(size_of "$T/j1.ll")"

# A rarer variance (fake_cc planted-rare: a fraction of the runs): the oracle sizes its tests
# by the measured rate, so the reduction still gets as far and the result still varies.
expect_exit 0 "$KDET" reduce "$T/med.ll" --cmd "$FAKES/fake_cc planted-rare {input} {output}" \
  --unnamed natural -o "$T/rare.ll"
(($(size_of "$T/rare.ll") * 100 <= $(size_of "$T/med.ll") * 15)) || fail "rare: $(size_of "$T/rare.ll") bytes"
expect_exit 1 "$KDET" run "$T/rare.ll" --cmd "$FAKES/fake_cc planted-rare {input} {output}" \
  --unnamed natural -n 64

# A candidate whose variance changed kind (fake_cc planted-kind crashes in half the runs once
# the "; kdet_keep" comment is gone, and the cleanup drops comments from every candidate) is
# rejected, so nothing shrinks (exit 1: less than --min-reduction, the rejections named);
# --any-variance accepts it.
{ echo '; kdet_keep'; cat "$T/med.ll"; } >"$T/kind.ll"
KIND="$FAKES/fake_cc planted-kind {input} {output}"
# An older SMALL there is replaced by the input when nothing smaller varies (it was kept, stale).
# Three crashes in four runs here, not half: a candidate without kdet_keep is wrongly kept when
# its 2 test runs and then its 16 confirming runs all succeed, (1/2)^18 = 4e-6 at half for each
# of about 150 candidates (6e-4 a reduction, in each of three CI phases), (1/4)^18 = 1.5e-11 at
# three in four; 1 candidate in 16 still passes its 2 runs, so the confirming runs are tested.
echo stale >"$T/kind-small.ll"
FAKE_CC_KIND_CRASH=192 expect_exit 1 "$KDET" reduce "$T/kind.ll" --cmd "$KIND" --unnamed natural \
  -o "$T/kind-small.ll"
expect_output 'only 0\.0 % smaller \(less than --min-reduction 5 %\)'
expect_output 'pass +ll-instructions: [0-9]+ tested, 0 accepted, .*[0-9]+ changed kind'
cmp -s "$T/kind.ll" "$T/kind-small.ll" || fail "a candidate that crashes was accepted (or SMALL is stale)"
expect_exit 0 "$KDET" reduce "$T/kind.ll" --cmd "$KIND" --unnamed natural --any-variance -o "$T/kind-any.ll"
(($(size_of "$T/kind-any.ll") * 100 <= $(size_of "$T/kind.ll") * 15)) || fail "--any-variance did not reduce"

# -o naming a device node (it was replaced by a regular file: as root, -o /dev/null removed
# the device) or the input through a linked folder (it was overwritten): exit 2 at once.
mkdir "$T/dev" "$T/in"
cp "$T/med.ll" "$T/in/med.ll"
ln -s "$T/in" "$T/linked"
for o in "$T/dev/null" "$T/linked/med.ll"; do
  [[ $o == */null ]] && { mknod "$o" c 1 3 2>/dev/null || continue; }
  expect_exit 2 "$KDET" reduce "$T/in/med.ll" --cmd "$CC" --unnamed natural -o "$o"
  expect_output "-o $o: (exists and is not a regular file|is the input)"
done
# SMALL.repro planted as a link (to a folder holding run/): exit 2, the link not followed
# (kdet removes SMALL.repro/run).
mkdir -p "$T/victim/run"
ln -s "$T/victim" "$T/x.ll.repro"
expect_exit 2 "$KDET" reduce "$T/in/med.ll" --cmd "$CC" --unnamed natural -o "$T/x.ll"
expect_output 'x.ll.repro exists and is not a folder'
[[ -d $T/victim/run && ! -e $T/x.ll ]] || fail "the planted .repro link was followed"
[[ ! -e $T/dev/null || -c $T/dev/null ]] || fail "the device node was replaced"
cmp -s "$T/med.ll" "$T/in/med.ll" || fail "the input was overwritten"

# An input that does not vary here: exit 2 with the bound.
expect_exit 2 "$KDET" reduce "$T/m/gen_0000.ll" --cmd "$CC" --unnamed natural -n 20 -o "$T/d.ll"
expect_output 'does not vary here: 20 runs, bound 14 %'
[[ ! -e $T/d.ll ]] || fail "a result was written for a deterministic input"
# A compiler that crashes on every other compile (a counter, not a clock) and otherwise gives one
# output: its crashes are its own, and the refusal says so, with the failures counted.
cat >"$T/crashy_cc" <<SH
#!/bin/sh
n=\$(cat "$T/crashy.count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/crashy.count"
[ \$((n % 2)) = 1 ] && kill -SEGV \$\$
exec "$FAKES/fake_cc" echo "\$1" "\$2"
SH
chmod +x "$T/crashy_cc"
expect_exit 2 "$KDET" reduce "$T/m/gen_0000.ll" --cmd "$T/crashy_cc {input} {output}" --unnamed natural -n 20 -o "$T/c.ll"
expect_output 'its successful compiles do not vary here: 20 runs, one output, and [0-9]+ failed \(crashed\+ok\)'
# An input that does not compile: exit 2.
sed 's/@kdet_planted/@kdet_broken/' "$T/med.ll" >"$T/broken.ll"
echo '; kdet_planted' >>"$T/broken.ll"
expect_exit 2 "$KDET" reduce "$T/broken.ll" --cmd "$CC" --unnamed natural -o "$T/b.ll"
expect_output 'does not compile'
if have_cuda; then
  printf 'this is not IR\n' >"$T/junk.ll"
  expect_exit 2 "$KDET" reduce "$T/junk.ll" --unnamed natural -n 4 -o "$T/j.ll" -- -arch=compute_90a
  expect_output 'does not compile'
fi

# An interrupt keeps the best so far and exits 130. A slow compiler makes it land mid-run.
cat >"$T/slow_cc" <<SH
#!/bin/sh
sleep 0.2
exec "$FAKES/fake_cc" planted "\$1" "\$2"
SH
chmod +x "$T/slow_cc"
"$KDET" reduce "$T/big.ll" --cmd "$T/slow_cc {input} {output}" --unnamed natural -n 4 \
  -o "$T/int.ll" >"$T/int.out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  [[ -e $T/int.ll ]] && break
  sleep 0.1
done
[[ -e $T/int.ll ]] || fail "no step accepted within 30 s"
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[[ $rc == 130 ]] || { cat "$T/int.out" >&2; fail "interrupted reduce exited $rc, want 130"; }
(($(size_of "$T/int.ll") < orig)) || fail "the kept result is not smaller"
grep -q kdet_planted "$T/int.ll" || fail "the kept result lost the planted construct"
echo "$NAME: ok (large kernel $orig -> $small bytes)"
