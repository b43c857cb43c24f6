#!/usr/bin/env bash
# tier: quick
# safe_output.sh: every output option writes through what is not a regular file
# and replaces only regular files (util/fs write_output). All targets are private
# nodes, FIFOs and links made in the test's temp folder, never system paths.
#  1. a character device (a private copy of the null device), and a link to it: still a device / a link after
#     `diff --json`, `cc -o`, `cache stats --json`.
#  2. a FIFO: the JSON arrives through it; the FIFO stays a FIFO.
#  3. a link to a regular file: the link stays, its target holds the document.
#  4. a regular file: replaced whole, no temporary left beside it.
#  5. `-` and a private /proc/self/fd/1 link (what /dev/stdout is), as root and as an unprivileged user.
#  6. a dangling link and a folder: exit 2 naming the option; nothing created, and
#     (capture, run, scan) before any work starts.
# Env: KDET, KDET_SOURCE_DIR (KDET_FAKES_DIR for cc). Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"

printf 'a\nb\n' >"$T/a.txt"
printf 'a\nc\n' >"$T/b.txt"
mknod "$T/null" c 1 3 2>/dev/null || skip "mknod is not permitted here (a private device node is needed)"
ln -s "$T/null" "$T/null.link"
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

# 1. A device and a link to one are written through, never replaced.
for target in "$T/null" "$T/null.link"; do
  expect_exit 1 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$target"
  expect_exit 0 "$KDET" cache stats --dir "$T/cache" --json "$target"
done
[[ -c $T/null && ! -L $T/null ]] || fail "the device node was replaced"
[[ -L $T/null.link && $(readlink "$T/null.link") == "$T/null" ]] || fail "the link to the device was replaced"
[[ -z $(ls -A "$T" | grep -E 'kdet-|\.tmp\.') ]] || fail "temporary files left: $(ls -A "$T")"
if [[ -x ${KDET_FAKES_DIR:-}/fake_cc ]]; then
  expect_exit 0 "$KDET" cc "$T/a.txt" --dir "$T/cache" -q -o "$T/null" -- "$KDET_FAKES_DIR/fake_cc" echo {input} {output}
  [[ -c $T/null ]] || fail "cc -o replaced the device node"
fi

# 2. A FIFO: the document arrives through it.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.got" &
reader=$!
expect_exit 1 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/fifo"
wait "$reader"
[[ -p $T/fifo ]] || fail "the FIFO was replaced"
is_json "$T/fifo.got" || fail "the FIFO did not carry the JSON document"

# 3. A link to a regular file: written through; the link stays a link.
echo old >"$T/target.json"
ln -s "$T/target.json" "$T/link.json"
expect_exit 1 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/link.json"
[[ -L $T/link.json ]] || fail "the link was replaced by a file"
is_json "$T/target.json" || fail "the link's target does not hold the document"

# 4. A regular file is replaced whole.
echo old >"$T/plain.json"
expect_exit 1 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/plain.json"
is_json "$T/plain.json" || fail "the regular file does not hold the document"
[[ $(ls -A "$T" | grep -c kdet-) == 0 ]] || fail "a temporary file was left beside the output"

# 5. - and a /dev/stdout-style link (/proc/self/fd/1), into a pipe.
("$KDET" diff "$T/a.txt" "$T/b.txt" --json - || true) | python3 -c 'import json,sys; json.load(sys.stdin)' ||
  fail "--json - did not give JSON on stdout"
ln -s /proc/self/fd/1 "$T/stdout"
"$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/stdout" >"$T/piped.txt" || true
grep -q '"schema"' "$T/piped.txt" || fail "--json to a /proc/self/fd/1 link did not reach stdout"
[[ -L $T/stdout ]] || fail "the stdout link was replaced"
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  chmod 755 "$T"
  chmod 644 "$T/a.txt" "$T/b.txt"
  if setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$KDET" 2>/dev/null; then
    out=$( (setpriv --reuid=65534 --regid=65534 --clear-groups -- "$KDET" diff "$T/a.txt" "$T/b.txt" \
              --json "$T/stdout" || true) |
          python3 -c 'import json,sys; print(json.JSONDecoder().raw_decode(sys.stdin.read())[0]["schema"])') ||
      fail "as an unprivileged user, --json through a /proc/self/fd/1 link into a pipe failed"
    [[ -n $out ]] || fail "no JSON reached the pipe as an unprivileged user"
  else
    echo "safe_output: note: $KDET is not executable by nobody; unprivileged check skipped"
  fi
fi

# 6. A dangling link and a folder: exit 2, naming the option; nothing created.
ln -s "$T/nowhere.json" "$T/dangling.json"
expect_exit 2 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/dangling.json"
expect_output -- '--json'
[[ ! -e $T/nowhere.json && -L $T/dangling.json ]] || fail "the dangling link was followed or replaced"
mkdir "$T/dir"
expect_exit 2 "$KDET" diff "$T/a.txt" "$T/b.txt" --json "$T/dir"
expect_output 'folder'
# Refused before the work, not after it (a pipeline or a run's result was lost).
expect_exit 2 "$KDET" capture --json "$T/dir" -- touch "$T/ran"
expect_output -- '--json .*is a folder'
ln -s "$T/dir" "$T/dirlink"
expect_exit 2 "$KDET" run "$T/a.txt" --cmd "touch $T/ran" -n 1 --json "$T/dirlink"
expect_exit 2 "$KDET" run "$T/a.txt" --cmd "touch $T/ran" -n 1 --json "$T/no/such/x.json"
expect_output 'does not exist'
printf 'inputs = ["a.txt"]\n[[compiler]]\nname = "t"\nbackend = "exec"\ncommand = "touch %s/ran {output}"\n' "$T" >"$T/m.toml"
expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/s.db" --junit "$T/dir" -q
expect_output -- '--junit .*is a folder'
[[ ! -e $T/ran && ! -e $T/s.db ]] || fail "the work ran before --json or --junit was refused"
echo "safe_output: PASS"
