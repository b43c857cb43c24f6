#!/usr/bin/env bash
# tier: quick
# adversary_db_nodes.sh: `kdet scan --db` naming a device node, a FIFO or a link to
# one is refused (exit 2, "not a regular file") before anything is created: SQLite
# used to open the device for writing and leave NAME.lock and NAME-journal beside
# it. Only private nodes in the test's temp folder are used.
# Env: KDET, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
mkdir "$T/dev"
mknod "$T/dev/null" c 1 3 2>/dev/null || skip "mknod not permitted (needs root)"
mkfifo "$T/dev/fifo"
ln -s "$T/dev/null" "$T/dev/link"
printf 'kernel\n' >"$T/k.txt"
printf '#!/bin/sh\ncat "$1" >"$2"\n' >"$T/cc.sh"
chmod +x "$T/cc.sh"
cat >"$T/m.toml" <<TOML
inputs = ["k.txt"]
[[compiler]]
name = "cat"
backend = "exec"
command = "$T/cc.sh {input} {output}"
[budget]
max_runs = 2
TOML
for db in null fifo link; do
  expect_exit 2 timeout 30 "$KDET" scan "$T/m.toml" --db "$T/dev/$db" -q -j 1
  expect_output "database $T/dev/$db: not a regular file"
  expect_exit 2 timeout 30 "$KDET" scan --report "$T/dev/$db" -q
  expect_output "not a regular file"
done
[[ $(ls "$T/dev" | sort | tr '\n' ' ') == "fifo link null " ]] || fail "files appeared beside the nodes: $(ls "$T/dev")"
[[ -c $T/dev/null && -p $T/dev/fifo && -L $T/dev/link ]] || fail "a node was replaced"
# A regular database still works.
expect_exit 0 timeout 60 "$KDET" scan "$T/m.toml" --db "$T/ok.db" -q -j 1
echo "adversary_db_nodes: PASS"
