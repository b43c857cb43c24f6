#!/usr/bin/env bash
# tier: quick
# adversary_input_nodes.sh: an input (or manifest) that is a device node, a FIFO or a link to
# one is refused at once with exit 2 naming it. Before, `kdet run` on a link to a zero device
# read without end, `kdet cc` died of std::bad_alloc (exit 70) and a FIFO blocked for ever.
# Only private nodes in the test's temp folder are used.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
mkdir "$T/dev"
mknod "$T/dev/zero" c 1 5 2>/dev/null || skip "mknod not permitted (needs root)"
mkfifo "$T/dev/fifo"
ln -s "$T/dev/zero" "$T/dev/link"
printf '#!/bin/sh\ncat "$1" >"$2"\n' >"$T/cc.sh"
chmod +x "$T/cc.sh"
export TMPDIR=$T
for n in zero fifo link; do
  in=$T/dev/$n
  expect_exit 2 timeout 20 "$KDET" run "$in" --backend exec --cmd "$T/cc.sh {input} {output}" -n 2 -q
  expect_output "cannot read $in: is a (character device|FIFO); kdet reads only regular files"
  expect_exit 2 timeout 20 "$KDET" explain "$in" --backend exec --cmd "$T/cc.sh {input} {output}" -n 2
  expect_output "cannot read $in"
  expect_exit 2 timeout 20 "$KDET" cc "$in" -o "$T/o.o" --dir "$T/cache" -q -- "$T/cc.sh" "$in" "$T/o.o"
  expect_output "cannot read $in"
  expect_exit 2 timeout 20 "$KDET" scan "$in" --db "$T/s.db" -q
  expect_output "cannot read $in"
done
# --lib: dlopen of a FIFO waited for a writer for ever.
printf 'define void @k() { ret void }\n' >"$T/k.ll"
for n in fifo link; do
  expect_exit 2 timeout 20 "$KDET" run "$T/k.ll" --lib "$T/dev/$n" -n 2 -q
  expect_output "--lib $T/dev/$n: not a regular file"
done
# A manifest's lib: a FIFO hung the scan; lib = "" silently meant the default.
for lib in "$T/dev/fifo" ""; do
  printf 'inputs = ["k.ll"]\n[[compiler]]\nname = "n"\nbackend = "nvvm"\nlib = "%s"\n' "$lib" >"$T/m.toml"
  expect_exit 2 timeout 20 "$KDET" scan "$T/m.toml" --db "$T/m.db" -q -j 1
  expect_output "m.toml:5: compiler 'n': lib "
done
# FIFOs planted in a shared cache folder (by any member of its group), where kdet expects its
# own files: the counters, a compiler identity, a variant's meta.json and artifact. Opening one
# waited for a writer for ever; now each is refused and the compile goes on.
printf 'one\n' >"$T/c.in"
expect_exit 0 timeout 20 "$KDET" cc "$T/c.in" -o "$T/c.out" --dir "$T/fc" -q -- "$T/cc.sh" "$T/c.in" "$T/c.out"
for f in "$T/fc/v1/counters" "$(ls "$T"/fc/v1/identity/*.json | head -1)" \
  "$(find "$T/fc/v1/entries" -name meta.json | head -1)" "$(find "$T/fc/v1/entries" -name a0 | head -1)"; do
  [[ -f $f ]] || fail "no cache file to replace: '$f'"
  rm "$f" && mkfifo "$f"
done
for verify in 0 1; do
  set +e
  timeout -k 5 20 "$KDET" cc "$T/c.in" -o "$T/c2.out" --dir "$T/fc" -q --verify-rate $verify -- "$T/cc.sh" "$T/c.in" "$T/c2.out" >"$T/out" 2>&1
  rc=$?
  set -e
  [[ $rc == 0 ]] || { cat "$T/out"; fail "kdet cc on a cache with FIFOs (verify rate $verify): exit $rc"; }
  cmp -s "$T/c.in" "$T/c2.out" || fail "kdet cc served the wrong bytes from a cache with FIFOs"
done
for sub in stats verify report gc; do
  set +e
  timeout -k 5 20 "$KDET" cache $sub --dir "$T/fc" >"$T/out" 2>&1
  rc=$?
  set -e
  [[ $rc != 124 && $rc != 137 ]] || fail "kdet cache $sub hung on a FIFO in the cache"
done
[[ -c $T/dev/zero && -p $T/dev/fifo && -L $T/dev/link ]] || fail "a node was replaced"
echo "adversary_input_nodes: PASS"
