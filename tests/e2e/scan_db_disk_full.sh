#!/usr/bin/env bash
# tier: quick
# A disk that fills at any moment of a scan database's first session (the file, SQLite's header,
# the schema, the meta, the plan, the runs) leaves a database that resumes, or none. The database
# is put on a tmpfs of S KiB in a private mount namespace, for S from 4 KiB up in page steps
# until the scan fits. Each scan that does not fit must end with a clean error naming the file
# (exit 2, "disk full"); then either no database is left, or, once the tmpfs is grown, the same
# command resumes it to the very runs (job, index, seed, variant, status) of a scan on a roomy
# disk.
if [[ -z ${KDET_DISK_FULL_NS:-} ]]; then
  # Root and a mount namespace of its own: the small file systems are seen by this test alone
  # and go with it.
  if [[ $(id -u) == 0 ]] && unshare -m --propagation private true 2>/dev/null; then
    exec unshare -m --propagation private env KDET_DISK_FULL_NS=1 bash "$0" "$@"
  fi
fi
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
[[ -n ${KDET_DISK_FULL_NS:-} ]] || skip "needs root and a private mount namespace (unshare -m), for small tmpfs mounts"
need_fakes libfakenvvm.so
cd "$T"
cp "$EX/nvvm/llvm7/saxpy.ll" a.ll
cp "$EX/nvvm/llvm7/saxpy.ll" b.ll
echo '; another input' >>b.ll
{
  printf 'name = "diskfull"\ninputs = ["*.ll"]\n[option_sets]\nO0 = ["-opt=0"]\nO3 = ["-opt=3"]\n'
  nvvm_compiler fake
  printf '[setting]\nseed = 5\nunnamed = "natural"\nprocess = "same"\n[budget]\nmax_runs = 6\nfirst_round = 3\n'
} >m.toml
expect_exit 0 "$KDET" scan m.toml --db ref.db -q
scan_runs ref.db >ref.txt
[[ $(wc -l <ref.txt) == 24 ]] || fail "the roomy scan stored $(wc -l <ref.txt) runs, not 24"

none=0 resumed=0 fits=0
for ((kib = 4; kib <= 2048; kib += 4)); do
  d=d$kib
  mkdir "$d"
  mount -t tmpfs -o size=${kib}k tmpfs "$d"
  on_exit "umount -l '$T/$d' 2>/dev/null"
  rc=0
  "$KDET" scan m.toml --db "$d/db" -q >"$d.out" 2>"$d.err" || rc=$?
  if ((rc == 0)); then
    fits=$kib
    scan_runs "$d/db" | cmp -s - ref.txt || fail "at $kib KiB the scan fit but stored other runs"
    umount "$d"
    break
  fi
  ((rc == 2)) || fail "at $kib KiB: exit $rc, not 2: $(cat "$d.err")"
  grep -Eq "database ([^ ]*/)?$d/db: disk full" "$d.err" || fail "at $kib KiB the error does not name the full disk: $(cat "$d.err")"
  mount -o remount,size=64m "$d"
  if [[ ! -e $d/db ]]; then
    [[ -z $(ls -A "$d") ]] || fail "at $kib KiB no database but files left: $(ls -A "$d")"
    none=$((none + 1))
  else
    expect_exit 0 "$KDET" scan m.toml --db "$d/db" -q
    scan_runs "$d/db" | cmp -s - ref.txt || fail "at $kib KiB the resumed database holds other runs than the roomy scan"
    resumed=$((resumed + 1))
  fi
  umount "$d"
done
((fits > 0)) || fail "the scan never fit in 2 MiB"
((none > 0)) || fail "no size failed the database's creation (the sweep starts too high)"
((resumed > 0)) || fail "no size failed after the creation (the sweep steps too coarse)"
echo "$NAME: disk full at $((none + resumed)) sizes from 4 to $((fits - 4)) KiB: $none left no database, $resumed resumed to the roomy scan's runs; fits at $fits KiB"
echo "$NAME: ok"
