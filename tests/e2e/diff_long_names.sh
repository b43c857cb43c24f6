#!/usr/bin/env bash
# tier: quick
# kdet diff of two PTX files whose kernel has a numba-length mangled name (3000 characters):
# the text report cuts it as every report does (first part, "...", 8 hex digits of the whole),
# the same way on every line, so no line fills a screen; --full-names prints it whole, and
# --json always holds it whole.
source "$(dirname "$0")/lib/common.bash"

name="_ZN6cudapy8__main__4kernB2v1B96$(printf 'A%.0s' $(seq 1 2900))E5ArrayIfLi1E1C7mutable7alignedE"
ptx() { # ptx OP: one kernel of that name, its one instruction OP
  cat <<PTX
.version 8.0
.target sm_80
.address_size 64

.visible .entry $name(
	.param .u64 p
)
{
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<2>;
	ld.param.u64 	%rd1, [p];
	ld.global.f32 	%f1, [%rd1];
	$1 	%f2, %f1, %f1;
	st.global.f32 	[%rd1], %f2;
	ret;
}
PTX
}
ptx add.f32 >"$T/a.ptx"
ptx mul.f32 >"$T/b.ptx"

expect_exit 1 "$KDET" diff "$T/a.ptx" "$T/b.ptx" --color never
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/out")
((longest < 300)) || fail "a line of $longest characters: the name is not cut"
short=$(grep -Eo 'kern\.\.\.[0-9a-f]{8}' "$T/out" | sort -u) # numba's function name, cut
expect_eq "one cut form on every line" "$(wc -l <<<"$short")" 1
expect_eq "the cut form appears on the entry and both hunk headers" \
  "$(grep -cF "$short" "$T/out")" 3
expect_exit 1 "$KDET" diff "$T/a.ptx" "$T/b.ptx" --color never --full-names
grep -qF "$name" "$T/out" || fail "--full-names does not print the name whole"
expect_exit 1 "$KDET" diff "$T/a.ptx" "$T/b.ptx" --json "$T/d.json"
held=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[2] in [e["name"] for e in d["entries"]])' "$T/d.json" "$name")
expect_eq "--json holds the name whole" "$held" True
echo "diff_long_names: a 3000-character kernel name cut the same way on every line; whole with --full-names and in JSON"
