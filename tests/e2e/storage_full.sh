#!/usr/bin/env bash
# tier: quick
# storage_full.sh: full storage is reported as such, and a cache that cannot store still serves.
#  1. `kdet cc` into a cache on a full file system: exit 0, the compiler's output served
#     byte for byte, a warning, and no staging folder left behind.
#     The same for a read-only cache.
#  2. `kdet scan` whose database is on a full file system: exit 2 with "disk full" naming the file
#     (never "cannot rollback - no transaction is active", never exit 70).
# Uses small private tmpfs mounts in the test's temp folder; skipped visibly where mount is refused.
# Env: KDET, KDET_FAKES_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc libfakenvvm.so
mkdir "$T/small" "$T/tiny"
mount -t tmpfs -o size=256k tmpfs "$T/small" 2>/dev/null || skip "cannot mount a private tmpfs here (not root, or no permission)"
on_exit 'umount "$T/small" "$T/tiny" 2>/dev/null'
mount -t tmpfs -o size=40k tmpfs "$T/tiny" || fail "the second tmpfs mount failed"

# 1. A full cache serves the compile.
head -c 200000 /dev/urandom | base64 >"$T/big.txt"
expect_exit 0 "$KDET" cc "$T/big.txt" --dir "$T/small/c" -o "$T/out.txt" -- "$KDET_FAKES_DIR/fake_cc" echo {input} {output}
expect_output "No space left on device.*served but not stored"
"$KDET_FAKES_DIR/fake_cc" echo "$T/big.txt" "$T/expected.txt"
cmp "$T/expected.txt" "$T/out.txt" || fail "the served output differs from the compiler's"
[[ -z $(ls -A "$T/small/c/v1/tmp") ]] || fail "a staging folder was left on the full cache"

# 1b. A read-only cache (a read-only mount: root ignores file modes) serves too.
mkdir "$T/ro"
mount -t tmpfs -o size=1m tmpfs "$T/ro" && mount -o remount,ro "$T/ro" || fail "read-only remount failed"
on_exit 'umount "$T/ro" 2>/dev/null'
expect_exit 0 "$KDET" cc "$T/big.txt" --dir "$T/ro" -o "$T/out2.txt" -- "$KDET_FAKES_DIR/fake_cc" echo {input} {output}
expect_output "Read-only file system.*served but not stored"
cmp "$T/expected.txt" "$T/out2.txt" || fail "the read-only cache did not serve the compiler's output"

# 2. A scan database on a full file system.
cat >"$T/m.toml" <<TOML
name = "full"
inputs = ["$EX/nvvm/llvm7/*.ll"]
[[compiler]]
name = "fake"
backend = "nvvm"
lib = "$(realpath "$KDET_FAKES_DIR")/libfakenvvm.so"
[budget]
max_runs = 400
first_round = 20
TOML
expect_exit 2 "$KDET" scan "$T/m.toml" --db "$T/tiny/r.db" -q
expect_output "database $T/tiny/r.db: disk full"
! grep -q "no transaction is active" "$T/out" || fail "the rollback error hid the disk-full error"
echo "storage_full: PASS"
