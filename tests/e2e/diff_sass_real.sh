#!/usr/bin/env bash
# tier: cuda
# e2e: `kdet diff` of real cubins by canonical SASS, with the real nvdisasm (found as kdet finds
# it: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin). Cubins from ptxas: the same compile twice;
# one whose .text has a register renumbered (an unused register in every field that named the
# old one, checked with nvdisasm); one with two instructions swapped; -O3 against -O0 and
# against --maxrregcount 24. Skipped, saying so, where nvdisasm or ptxas is absent.
source "$(dirname "$0")/lib/common.bash"
nvdisasm=$(command -v nvdisasm || true)
for c in ${CUDA_HOME:+$CUDA_HOME/bin/nvdisasm} /usr/local/cuda/bin/nvdisasm; do
  [[ -z $nvdisasm && -x $c ]] && nvdisasm=$c
done
[[ -n $nvdisasm ]] || skip "nvdisasm not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin): SASS is compared as 16-byte words here"
ptxas=$(dirname "$nvdisasm")/ptxas
[[ -x $ptxas ]] || ptxas=/usr/local/cuda/bin/ptxas
[[ -x $ptxas ]] || skip "ptxas not found beside $nvdisasm or in /usr/local/cuda/bin"
data=$KDET_SOURCE_DIR/tests/data/diff

expect_out() { grep -qF -- "$1" "$T/out" || { cat "$T/out" >&2; fail "output lacks: $1"; }; }
# instructions FILE: nvdisasm's instruction lines of the cubin, without addresses.
instructions() { "$nvdisasm" "$1" | sed -nE 's@^ *\/\*[0-9a-f]{4,}\*\/ *(.*[^ ]) *;.*@\1@p'; }

"$ptxas" -arch=sm_90 "$EX/ptx/saxpy.ptx" -o "$T/a.cubin"
"$ptxas" -arch=sm_90 "$EX/ptx/saxpy.ptx" -o "$T/a2.cubin"
expect_rc 0 "$KDET" diff "$T/a.cubin" "$T/a2.cubin" --nvdisasm "$nvdisasm"
expect_out "identical"

instructions "$T/a.cubin" >"$T/a.sass"
[[ -s $T/a.sass ]] || fail "no instruction lines in nvdisasm's listing of a.cubin"

# Edits of .text.saxpy: rename R<x> (the highest listed) to R<u> (the lowest unused) in
# word 0 bytes 2, 3, 4 and word 1 byte 0 (the register fields of sm_90 encodings) of the
# instructions that name it; or swap instructions 8 and 9.
python3 - "$T/a.cubin" "$T/a.sass" "$T" <<'PY'
import re, struct, sys
cubin, sass, out = sys.argv[1], sys.argv[2], sys.argv[3]
d = bytearray(open(cubin, 'rb').read())
lines = open(sass).read().splitlines()
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
sh = lambda i: struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
text = None
for i in range(shnum):
    name, off, size = sh(i)[0], sh(i)[4], sh(i)[5]
    if d[stroff + name:d.index(0, stroff + name)] == b'.text.saxpy':
        text = (off, size)
assert text and text[1] == 16 * len(lines), (text, len(lines))
used = {int(n) for l in lines for n in re.findall(r'\bR(\d+)\b', l)}
for l in lines:  # the other halves of register pairs and quads (R2.64 is R2 and R3)
    for n, w in re.findall(r'\bR(\d+)\.(64|128)\b', l):
        used |= set(range(int(n), int(n) + int(w) // 32))
x, u = max(used), min(set(range(1, 200)) - used)
b = bytearray(d)
for k, l in enumerate(lines):
    if re.search(r'\bR%d\b' % x, l):
        at = text[0] + 16 * k
        for p in (2, 3, 4, 8):
            if b[at + p] == x:
                b[at + p] = u
open(out + '/renamed.cubin', 'wb').write(b)
open(out + '/renamed.want', 'w').write('\n'.join(re.sub(r'\bR%d\b' % x, 'R%d' % u, l) for l in lines) + '\n')
s = bytearray(d)
at = text[0] + 16 * 8
s[at:at + 16], s[at + 16:at + 32] = d[at + 16:at + 32], d[at:at + 16]
open(out + '/swapped.cubin', 'wb').write(s)
PY
instructions "$T/renamed.cubin" >"$T/renamed.sass"
diff "$T/renamed.want" "$T/renamed.sass" >&2 ||
  fail "the renamed cubin does not list as planned (register fields guessed wrong for this nvdisasm)"
cmp -s "$T/a.sass" "$T/renamed.sass" && fail "the renamed cubin lists as the original"

# Renamed register: same canonical SASS; the words alone call it a change.
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/renamed.cubin" --nvdisasm "$nvdisasm" --color never
expect_out "same SASS up to register and address renaming in 1 of 1 kernel"
expect_out "note: SASS compared as canonical nvdisasm listings"
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/renamed.cubin" --nvdisasm none --color never
expect_out ".text changed in 1 of 1 kernel"
# Found without the option, as kdet run and scan find it.
PATH=$(dirname "$nvdisasm"):$PATH expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/renamed.cubin"
expect_out "same SASS up to register and address renaming"

# Swapped pair: instruction order.
[[ $(instructions "$T/swapped.cubin" | sed -n 9p) == "$(sed -n 10p "$T/a.sass")" ]] ||
  fail "the swapped cubin does not list instruction 10 as 9"
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/swapped.cubin" --nvdisasm "$nvdisasm" --json "$T/s.json"
expect_eq "swap class" "$(json_eval "$T/s.json" '[e["change"] for e in d["entries"] if e["name"]=="saxpy"][0]')" reordered
expect_eq "swap moved" "$(json_eval "$T/s.json" '[e["moved"] for e in d["entries"] if e["name"]=="saxpy"][0]')" 1

# Other optimisation and register limits: code, with canonical hunks (branch targets as labels).
for pair in "two_kernels.ptx -O0" "row_softmax.ptx -O3 --maxrregcount=24"; do
  read -r ptx opts <<<"$pair"
  "$ptxas" -arch=sm_90a -O3 "$data/$ptx" -o "$T/x.cubin"
  # shellcheck disable=SC2086 # the options are words
  "$ptxas" -arch=sm_90a $opts "$data/$ptx" -o "$T/y.cubin"
  # The listings' own instructions, with their addresses, unless --canonical.
  expect_rc 1 "$KDET" diff "$T/x.cubin" "$T/y.cubin" --nvdisasm "$nvdisasm" --json "$T/own.json"
  json_eval "$T/own.json" '[l["text"] for e in d["entries"] for h in e["hunks"] for l in h["lines"]]' >"$T/lines"
  grep -qE '/\*[0-9a-f]{4,}\*/ ' "$T/lines" || fail "$ptx with $opts: hunks without the listing's addresses"
  expect_rc 1 "$KDET" diff "$T/x.cubin" "$T/y.cubin" --nvdisasm "$nvdisasm" --json "$T/x.json" --color never --canonical
  expect_out "register count changed"
  expect_out "SASS changed in"
  expect_out "note: SASS compared as canonical nvdisasm listings"
  json_eval "$T/x.json" '[l["text"] for e in d["entries"] for h in e["hunks"] for l in h["lines"]]' >"$T/lines"
  [[ $(wc -c <"$T/lines") -gt 100 ]] || fail "$ptx with $opts: no hunks"
  if [[ $ptx == row_softmax.ptx ]]; then
    grep -qF '`(.L_x_' "$T/lines" || fail "row_softmax's hunks show no branch label"
    grep -qE 'BRA 0x[0-9a-f]+' "$T/lines" && fail "row_softmax's hunks show an absolute branch address"
  fi
done

echo "diff_sass_real: all checks passed"
