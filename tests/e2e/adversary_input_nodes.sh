#!/usr/bin/env bash
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
[[ -c $T/dev/zero && -p $T/dev/fifo && -L $T/dev/link ]] || fail "a node was replaced"
echo "adversary_input_nodes: PASS"
