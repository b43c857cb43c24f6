#!/usr/bin/env bash
# tier: cuda
# e2e: `kdet diff` of cubins through a fake nvdisasm (tests/fakes/fake_nvdisasm.sh): listings
# that differ only in register numbers, listings that differ in code, and an nvdisasm that
# hangs, crashes, fails or prints garbage (each a note, with the 16-byte word compare instead).
# `kdet run` describes its cubin variants the same way (KDET_NVDISASM).
# Needs ptxas (for a real cubin, whose .text.saxpy has the listing's 32 instructions).
source "$(dirname "$0")/lib/common.bash"
ptxas=/usr/local/cuda/bin/ptxas
[[ -x $ptxas ]] || skip "ptxas not found at $ptxas (CUDA 13 is needed for a real cubin)"
fake=$KDET_SOURCE_DIR/tests/fakes/fake_nvdisasm.sh
listing=$KDET_SOURCE_DIR/tests/data/sass/saxpy_sm90.nvdisasm.txt

expect_out() { grep -qF -- "$1" "$T/out" || { cat "$T/out" >&2; fail "output lacks: $1"; }; }

"$ptxas" -arch=sm_90 "$EX/ptx/saxpy.ptx" -o "$T/a.cubin"
# B: one byte of .text.saxpy changed (what the listing says of it is the fake's to tell).
python3 - "$T/a.cubin" "$T/b.cubin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
def sh(i):
    return struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, _, _, _, off, size = sh(i)[:6]
    n = d[stroff + name:d.index(0, stroff + name)].decode()
    if n == '.text.saxpy':
        assert size == 0x200, size
        d[off + 0x62] ^= 1  # ISETP's second register field
        break
else:
    sys.exit('no .text.saxpy')
open(sys.argv[2], 'wb').write(d)
PY
mkdir "$T/listings"
sum() { sha256sum <"$1" | cut -c1-64; }
cp "$listing" "$T/listings/$(sum "$T/a.cubin").txt"
# B's listing: every R register renumbered (R7 -> R17, ...), nothing else.
sed -E 's/\bR([0-9]+)\b/R1\1/g' "$listing" >"$T/listings/$(sum "$T/b.cubin").txt"
grep -q 'FFMA R17, R12, UR6, R17' "$T/listings/$(sum "$T/b.cubin").txt"
export FAKE_NVDISASM_DIR=$T/listings

# Renamed registers only: same canonical SASS.
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake" --color never
expect_out "same SASS up to register and address renaming in 1 of 1 kernel"
expect_out "note: SASS compared as canonical nvdisasm listings"
expect_out "renamed    kernel   saxpy"
# The same through KDET_NVDISASM, and through the JSON.
KDET_NVDISASM=$fake expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --json "$T/r.json"
expect_eq "JSON change" "$(json_eval "$T/r.json" '[e["change"] for e in d["entries"] if e["name"]=="saxpy"][0]')" renamed
expect_eq "JSON aspects" "$(json_eval "$T/r.json" '[e["aspects"] for e in d["entries"] if e["name"]=="saxpy"][0]')" "['names']"

# A changed instruction (and the renumbering): code, with a hunk.
sed -E 's/FFMA R7, R2, UR6, R7 ;/FMUL R7, R2, UR6 ;/; s/\bR([0-9]+)\b/R1\1/g' "$listing" \
  >"$T/listings/$(sum "$T/b.cubin").txt"
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake" --color never
expect_out "SASS changed in 1 of 1 kernel"
expect_out "code       kernel   saxpy"
# Hunks in each listing's own text, with addresses and listing lines; --canonical renames.
expect_out "-   280        /*0100*/ FFMA R7, R2, UR6, R7;"
expect_out "+         280  /*0100*/ FMUL R17, R12, UR6;"
expect_out "~         281  /*0110*/ STG.E desc[UR4][R14.64], R17;"
expect_out "    283   283  .L_x_0:"
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake" --color never --canonical
grep -E '^-.*FFMA R2, R3, UR1, R2$' "$T/out" >/dev/null || fail "no '-' line for FFMA"
grep -E '^\+.*FMUL R2, R3, UR1$' "$T/out" >/dev/null || fail "no '+' line for FMUL"

# --nvdisasm none, or no nvdisasm anywhere: the words, saying so.
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm none --color never
expect_out "note: SASS compared as 16-byte instruction words (nvdisasm not used: --nvdisasm none)"
expect_out ".text changed in 1 of 1 kernel"
mkdir "$T/empty"
env PATH="$T/empty" CUDA_HOME="$T/empty" CUDA_PATH="$T/empty" KDET_NVDISASM= \
  "$KDET" diff "$T/a.cubin" "$T/b.cubin" --color never >"$T/out" 2>&1 || true
# (unless the CUDA home kdet was built with has one)
grep -qF "SASS compared as canonical nvdisasm listings" "$T/out" ||
  expect_out "SASS compared as 16-byte instruction words (nvdisasm not found; --nvdisasm PATH or KDET_NVDISASM names it)"

# A hanging nvdisasm: the timeout ends it (and its process group), the words are compared.
start=$SECONDS
FAKE_NVDISASM_MODE=hang expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake" \
  --nvdisasm-timeout 1 --color never
((SECONDS - start < 30)) || fail "a hanging nvdisasm held kdet diff $((SECONDS - start)) s"
expect_out "SASS compared as 16-byte instruction words: nvdisasm timed out on A"
expect_out ".text changed in 1 of 1 kernel"
wait_no_pids 5 fake_nvdisasm || fail "the hanging nvdisasm was left running: $(test_pids fake_nvdisasm)"

# Crash, failure, garbage: a note each, never a kdet error.
FAKE_NVDISASM_MODE=crash expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake"
expect_out "nvdisasm killed by signal 11 (SIGSEGV) on A"
FAKE_NVDISASM_MODE=fail expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake"
expect_out "nvdisasm exited 1 on A: nvdisasm fatal   : (requested) failure"
FAKE_NVDISASM_MODE=garbage expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake"
expect_out "SASS compared as 16-byte instruction words: nvdisasm's listing of A has no function saxpy"
# A listing of another kernel size: not used.
head -n 282 "$listing" >"$T/listings/$(sum "$T/b.cubin").txt"
expect_rc 1 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake"
expect_out "nvdisasm's listing of B has 19 instructions for saxpy's 512 bytes"

# Bad options and a bad KDET_NVDISASM: exit 2, naming them.
expect_rc 2 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$T/listings"
grep -q -- "--nvdisasm $T/listings: not an executable file" "$T/err" || fail "$(cat "$T/err")"
KDET_NVDISASM=$T/nothing expect_rc 2 "$KDET" diff "$T/a.cubin" "$T/b.cubin"
grep -q "KDET_NVDISASM $T/nothing: not an executable file" "$T/err" || fail "$(cat "$T/err")"
expect_rc 2 "$KDET" diff "$T/a.cubin" "$T/b.cubin" --nvdisasm "$fake" --nvdisasm-timeout 0
# Identical cubins never run nvdisasm.
FAKE_NVDISASM_MODE=hang expect_rc 0 "$KDET" diff "$T/a.cubin" "$T/a.cubin" --nvdisasm "$fake"

# kdet run: variants that differ only in register numbers are described so.
sed -E 's/\bR([0-9]+)\b/R1\1/g' "$listing" >"$T/listings/$(sum "$T/b.cubin").txt"
cat >"$T/cc.sh" <<SH
#!/bin/bash
# Gives a.cubin on odd compiles, b.cubin on even ones (kdet runs it with --jobs 1).
n=\$(cat "$T/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/count"
if ((n % 2)); then cp "$T/b.cubin" "\$2"; else cp "$T/a.cubin" "\$2"; fi
SH
chmod +x "$T/cc.sh"
KDET_NVDISASM=$fake expect_rc 1 "$KDET" run "$EX/ptx/saxpy.ptx" --backend exec \
  --cmd "$T/cc.sh {input} {output}" -n 4 --jobs 1 --json "$T/run.json" --color never
json_eval "$T/run.json" 'd["variants"]' | grep -q "same SASS up to register and address renaming" ||
  fail "kdet run's variants: $(json_eval "$T/run.json" 'd["variants"]')"

echo "diff_sass_fake: all checks passed"
