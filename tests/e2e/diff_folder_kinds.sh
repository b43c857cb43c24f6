#!/usr/bin/env bash
# tier: quick
# kdet diff on folders names what diff -r names beyond files: a subfolder on one side only
# (empty, so no file under it tells) makes the folders differ (exit 1, "only in A"), and a
# folder on one side where the other has a file is named as such, not as "only in B".
source "$(dirname "$0")/lib/common.bash"


# The same file on both sides; A has an empty subfolder three levels down that B lacks.
mkdir -p "$T/a/x/y/empty" "$T/b/x/y"
echo same >"$T/a/x/f.txt"
echo same >"$T/b/x/f.txt"
expect_rc 1 "$KDET" diff "$T/a" "$T/b" --color never
grep -qx "x/y/empty: only in A (an empty folder)" "$T/out" ||
  { cat "$T/out"; fail "an empty folder only in A is not listed"; }
expect_rc 1 "$KDET" diff "$T/a" "$T/b" --json -
expect_eq "empty folder: only_in" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([x["only_in"] for x in d["artifacts"] if x["name"]=="x/y/empty"])' "$T/out")" "['A']"
# The other way round, B's side.
expect_rc 1 "$KDET" diff "$T/b" "$T/a" --color never
grep -qx "x/y/empty: only in B (an empty folder)" "$T/out" ||
  { cat "$T/out"; fail "an empty folder only in B is not listed"; }
# Only one side's root holds an empty folder, nothing else: still a difference, not "no files".
mkdir -p "$T/c/sub" "$T/d"
expect_rc 1 "$KDET" diff "$T/c" "$T/d" --color never
grep -qx "sub: only in A (an empty folder)" "$T/out" || { cat "$T/out"; fail "sub not listed"; }
# Empty folders on both sides at the same place are the same (diff -r: identical).
mkdir -p "$T/b/x/y/empty"
expect_rc 0 "$KDET" diff "$T/a" "$T/b" --color never

# A folder in A where B has a file of the same name: named as such.
mkdir -p "$T/e/clash" "$T/f"
echo inner >"$T/e/clash/inner.txt"
echo file >"$T/f/clash"
expect_rc 1 "$KDET" diff "$T/e" "$T/f" --color never
grep -qx "clash: a folder in A, a regular file in B" "$T/out" ||
  { cat "$T/out"; fail "a folder against a file is not named"; }
grep -qx "clash/inner.txt: only in A" "$T/out" || { cat "$T/out"; fail "the folder's file not listed"; }
if grep -qx "clash: only in B" "$T/out"; then cat "$T/out"; fail "the file called only in B"; fi
# A non-empty folder only in A is listed by its files, not once more by itself.
# ("full-b" sorts between "full" and "full/one.txt".)
mkdir -p "$T/g/full" "$T/h/full-b"
echo x >"$T/g/full/one.txt"
echo y >"$T/h/full-b/two.txt"
expect_rc 1 "$KDET" diff "$T/g" "$T/h" --color never
expect_eq "a full folder only in A: its files only" "$(cat "$T/out")" \
  "full-b/two.txt: only in B
full/one.txt: only in A"
echo "diff_folder_kinds: empty folders on one side and a folder against a file named, exit 1"
