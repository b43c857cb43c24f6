#!/usr/bin/env bash
# tier: quick
# kdet capture --out packs its bundles: each distinct file once in bundles/bundles.pack, listed in
# bundles/index, and under --builds N one pack (DIR/packs) for every build, so a bundle identical
# in every build is stored once. The packed bundles hold what --bundle-layout folders writes,
# byte for byte; DIR/bundles/ID still works for run, explain, scan, cache compile and diff; a
# damaged, cut-short or linked pack or index is a clear error naming it (exit 2), never a crash.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
[[ -f $FAKE && -x $CL/capture_nvvm_client ]] ||
  skip "fakes or capture clients not built (ninja kdet_test_fakes kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# Three bundles: saxpy twice (other options, the same input and, from the echo fake, the same
# output) and, each build, a module of its own (a counter in a comment).
cat >"$T/pipeline.sh" <<SH
#!/bin/sh
set -e
n=\$(cat "$T/count" 2>/dev/null || echo 0); echo \$((n + 1)) >"$T/count"
"$CL/capture_nvvm_client" "$FAKE" 1 2 "$IN" -- -fake-mode=echo
"$CL/capture_nvvm_client" "$FAKE" 1 1 "$IN" -- -fake-mode=echo -opt=0
{ echo "; build \$n"; cat "$EX/nvvm/llvm7/block_reduce.ll"; } >"$T/own.ll"
"$CL/capture_nvvm_client" "$FAKE" 1 1 "$T/own.ll" -- -fake-mode=echo
SH
chmod +x "$T/pipeline.sh"
# blobs PACK: the blobs a pack holds (header by header, each checked to end inside the file).
blobs() {
  python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
off = n = 0
while off < len(data):
    nl = data.index(b"\n", off)
    magic, h, size = data[off:nl].split(b" ")
    assert magic == b"kdet-blob" and len(h) == 32, off
    off = nl + 1 + int(size)
    assert off <= len(data)
    n += 1
print(n)
PY
}
lines() { tail -n +2 "$1" | wc -l; }

# Packed and folders: the same bundles, byte for byte.
echo 0 >"$T/count"
expect_exit 0 "$KDET" capture --out "$T/p" --json "$T/p.json" -- "$T/pipeline.sh"
echo 0 >"$T/count"
expect_exit 0 "$KDET" capture --bundle-layout folders --out "$T/f" -- "$T/pipeline.sh"
[[ -f $T/p/bundles/index && -f $T/p/bundles/bundles.pack ]] || fail "no bundles/index and bundles.pack"
[[ ! -e $T/f/bundles/index ]] || fail "--bundle-layout folders wrote an index"
expect_eq "bundles" "$(json_eval "$T/p.json" 'len(d["bundles"])')" 3
expect_eq "files in the index" "$(lines "$T/p/bundles/index")" 9
# saxpy's input and output are stored once for its two bundles: 9 files, 7 blobs.
expect_eq "blobs in the pack" "$(blobs "$T/p/bundles/bundles.pack")" 7
cp -r "$T/p" "$T/u"
unpack_bundles "$T/u"
rm "$T/u/bundles/index" "$T/u/bundles/bundles.pack"
diff -r "$T/u/bundles" "$T/f/bundles" >&2 || fail "packed bundles differ from the folders"
diff <(sed "s|$T/p|X|g" "$T/p/manifest.toml") <(sed "s|$T/f|X|g" "$T/f/manifest.toml") >&2 ||
  fail "the manifests differ"

# Every command that takes a bundle takes DIR/bundles/ID of a packed one.
ids=($(json_eval "$T/p.json" '" ".join(b["id"] for b in d["bundles"])'))
expect_exit 0 "$KDET" run "$T/p/bundles/${ids[0]}" -n 2 --json "$T/r.json"
expect_eq "replayed" "$(json_eval "$T/r.json" 'd["replay"]["reproduced"]')" True
expect_exit 0 "$KDET" cache compile "$T/p/bundles/${ids[1]}" --dir "$T/cache" -o "$T/k.ptx"
cmp -s "$T/k.ptx" <(head -c -1 "$T/u/bundles/${ids[1]}"/outputs/*.ptx) || fail "cache compile's PTX"
expect_exit 0 "$KDET" diff "$T/p/bundles/${ids[0]}/inputs" "$T/p/bundles/${ids[1]}/inputs"
expect_exit 1 "$KDET" diff "$T/p/bundles/${ids[0]}/inputs" "$T/p/bundles/${ids[2]}/inputs"
printf 'name = "x"\nbundles = ["p/bundles/*"]\n[budget]\nmax_runs = 2\nfirst_round = 2\n' >"$T/all.toml"
expect_exit 0 "$KDET" scan "$T/all.toml" --db "$T/s.db" --json "$T/s.json"
expect_eq "scan jobs" "$(json_eval "$T/s.json" 'sorted(j["bundle"] for j in d["jobs"])')" \
  "$(json_eval "$T/p.json" 'sorted(b["id"] for b in d["bundles"])')"
# A file inside a packed bundle, as the README's kdet reduce names one, is an input too.
expect_exit 0 "$KDET" run "$T/p/bundles/${ids[0]}/inputs/00-module.ll" --lib "$FAKE" -n 2 -- -fake-mode=echo
expect_exit 2 "$KDET" run "$T/p/bundles/0123456789abcdef" -n 2
expect_output "no bundle 0123456789abcdef in $T/p/bundles/index"
# An old capture folder (a folder per bundle) reads as before.
expect_exit 0 "$KDET" run "$T/f/bundles/${ids[0]}" -n 2

# --builds 2: one pack for both builds; what is identical in both is stored once.
echo 0 >"$T/count"
expect_exit 1 "$KDET" capture --builds 2 --out "$T/b" --json "$T/b.json" -- "$T/pipeline.sh"
[[ -f $T/b/packs/bundles.pack && ! -e $T/b/build-1/bundles/bundles.pack ]] || fail "no shared pack"
expect_eq "index lines" "$(lines "$T/b/build-1/bundles/index") $(lines "$T/b/build-2/bundles/index")" "9 9"
# Build 2 added its own module's bundle (input, output, bundle.json) and nothing else.
expect_eq "blobs for both builds" "$(blobs "$T/b/packs/bundles.pack")" 10
expect_eq "saxpy's bundles, same bytes" "$(tail -n +2 "$T/b/build-2/bundles/index" | grep -c -F -x -f "$T/b/build-1/bundles/index")" 6
nxt=$(json_eval "$T/b.json" '[k["next"] for k in d["kernels"] if k["next"]][0]')
[[ $nxt == "kdet diff $T/b/build-1/bundles/"* ]] || fail "next: $nxt"
expect_exit 1 ${nxt/kdet/$KDET}
# build-2's first bundle replays from the shared pack.
expect_exit 0 "$KDET" run "$T/b/build-2/bundles/${ids[0]}" -n 2

# Hostile packs and indexes: exit 2 naming the file, never a crash.
B=$T/p/bundles/${ids[0]}
cp "$T/p/bundles/bundles.pack" "$T/pack.good"
truncate -s 100 "$T/p/bundles/bundles.pack"
expect_exit 2 "$KDET" run "$B" -n 2
expect_output "$T/p/bundles/bundles.pack: cut short"
expect_exit 2 "$KDET" diff "$B/inputs" "$T/p/bundles/${ids[1]}/inputs"
expect_output "bundles.pack: cut short"
expect_exit 2 "$KDET" scan "$T/all.toml" --db "$T/s2.db"
expect_output "bundles.pack: cut short"
python3 - "$T/pack.good" "$T/p/bundles/bundles.pack" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(60, len(d), 7):
    d[i] ^= 0x5a
open(sys.argv[2], "wb").write(d)
PY
expect_exit 2 "$KDET" run "$B" -n 2
expect_output "$T/p/bundles/bundles.pack: damaged: bundle ${ids[0]}"
rm "$T/p/bundles/bundles.pack"
ln -s "$T/pack.good" "$T/p/bundles/bundles.pack"
expect_exit 2 "$KDET" run "$B" -n 2
expect_output "$T/p/bundles/bundles.pack: .*the pack of bundle"
rm "$T/p/bundles/bundles.pack"
cp "$T/pack.good" "$T/p/bundles/bundles.pack"
cp "$T/p/bundles/index" "$T/index.good"
for bad in "${ids[0]} bundle.json ../../../etc/passwd 0 10 00000000000000000000000000000000" \
  "${ids[0]} ../bundle.json bundles.pack 0 10 00000000000000000000000000000000" \
  "${ids[0]} bundle.json bundles.pack 0 99999999999999999999999 00000000000000000000000000000000" \
  "${ids[0]} bundle.json" $'\x1b]0;title\x07'; do
  { cat "$T/index.good"; printf '%s\n' "$bad"; } >"$T/p/bundles/index"
  expect_exit 2 "$KDET" run "$B" -n 2
  expect_output "$T/p/bundles/index:11: damaged bundle index line"
done
printf 'kdet-bundle-index 9\n' >"$T/p/bundles/index"
expect_exit 2 "$KDET" run "$B" -n 2
expect_output "$T/p/bundles/index:1: not a bundle index of kdet capture"
head -c 5000000 /dev/urandom >"$T/p/bundles/index"
expect_exit 2 "$KDET" run "$B" -n 2
rm "$T/p/bundles/index"
ln -s "$T/index.good" "$T/p/bundles/index"
expect_exit 2 "$KDET" run "$B" -n 2
expect_output "$T/p/bundles/index: .*never a link"
