#!/usr/bin/env bash
# tier: quick
# The listing factor: the order readdir gives a folder's entries. A compiler that prints a
# folder's listing in readdir's order (`ls -U`) gives one output per run under listing=fixed
# (sorted by name, the same output as `sort`), several under listing=vary (a seeded shuffle per
# run), and the same run replays under the same seed. kdet exec --fix listing gives kdet run's
# fixed listing to any command.
source "$(dirname "$0")/lib/common.bash"
lib=$(dirname "$KDET")/libkdet_listing.so
[[ -f $lib ]] || skip "libkdet_listing.so not built (the kdet_listing target)"
cd "$T"
mkdir files
for i in $(seq 1 40); do : >"files/f$i"; done
cat >lister.sh <<SH
#!/bin/sh
# A compiler whose output is a folder's listing in readdir's order.
exec ls -U -- "$T/files"
SH
chmod +x lister.sh
echo x >in.txt
run() { # LEVEL OUT EXIT: six runs of the lister under --listing LEVEL (exit 1: nondeterministic)
  expect_exit "$3" "$KDET" run in.txt --backend exec --cmd "$T/lister.sh {input}" -n 6 \
    --process fresh --listing "$1" --unnamed natural --seed 7 --out "$T/$2" --no-reach
}
variants() { ls -d "$T/$1"/variants/*/ | wc -l; }
run fixed fixed 0
expect_eq "listing=fixed: one output" "$(variants fixed)" 1
expect_eq "listing=fixed: sorted by name" "$(cat "$T"/fixed/variants/*/stdout)" \
  "$(ls -U files | LC_ALL=C sort)"
run vary vary 1
[[ $(variants vary) -gt 1 ]] || fail "listing=vary gave one output in 6 runs"
run vary again 1
expect_eq "the same seed, the same outputs" "$(cat "$T"/vary/variants/*/stdout | md5sum)" \
  "$(cat "$T"/again/variants/*/stdout | md5sum)"
# kdet exec --fix listing: the listing kdet run called fixed, for any command.
expect_eq "kdet exec --fix listing: sorted as kdet run's fixed" \
  "$("$KDET" exec --deterministic --fix listing -- "$T/lister.sh")" "$(cat "$T"/fixed/variants/*/stdout)"
# With time fixed too, both libraries are preloaded (one LD_PRELOAD).
if command -v faketime >/dev/null; then
  expect_eq "kdet exec --fix listing,time: still sorted" \
    "$("$KDET" exec --deterministic --fix listing,time -- "$T/lister.sh")" "$(cat "$T"/fixed/variants/*/stdout)"
fi
echo "$NAME: ok"
