#!/usr/bin/env bash
# With time held by libfaketime, kdet makes the library's shared clock itself, one name length for
# every launch, and removes it: the pid no longer reaches a compiler's addresses, and nothing is
# left in /dev/shm.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CC=$KDET_FAKES_DIR/fake_cc
[[ -f $FAKE && -x $CC ]] || skip "fake compilers not built"
[[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]] || skip "libfaketime is not installed"
[[ -d /dev/shm ]] || skip "no /dev/shm"
IN=$EX/nvvm/llvm7/saxpy.ll
# kdet's shared clocks whose owner has ended (other tests' live ones may come and go meanwhile).
orphans() {
  local n pid
  for n in $(ls /dev/shm | sed -n 's/^\(sem\.\)\{0,1\}\(kdet-ft-[0-9]\{10\}-.*\)/\2/p' | sort -u); do
    pid=$((10#${n:8:10}))
    kill -0 "$pid" 2>/dev/null || echo "$n"
  done
}
before=$(orphans)

# Natural pids of several digits' lengths, ASLR off, time fixed: a compiler that follows only its
# load address must give one output (libfaketime's own pid-named objects made it vary).
expect_exit 0 "$KDET" run "$IN" --lib "$FAKE" -n 24 --process fresh --aslr off --time fixed \
  --pid vary --heap none --unnamed natural --json "$T/r.json" -- -fake-mode=loadaddr
# No object named after any worker's pid, and none of kdet's own, outlives the run.
for pid in $(json_eval "$T/r.json" '" ".join(str(r["worker_pid"]) for r in d["records"])'); do
  [[ ! -e /dev/shm/faketime_shm_$pid && ! -e /dev/shm/sem.faketime_sem_$pid ]] ||
    fail "libfaketime's objects of worker $pid were left in /dev/shm"
done

# The exec backend and kdet exec: the compile sees kdet's clock, and it is gone afterwards.
expect_exit 0 "$KDET" run "$IN" --cmd "$CC echo {input} {output}" -n 4 --time fixed
expect_exit 0 "$KDET" exec --deterministic --fix time -- sh -c 'echo "shared=$FAKETIME_SHARED"; ls /dev/shm'
name=$(sed -n 's|^shared=/\(kdet-ft-[0-9a-f-]*\) .*|\1|p' "$T/out")
[[ -n $name ]] || fail "kdet exec --fix time did not hand the command kdet's shared clock"
grep -qx "$name" "$T/out" || fail "the shared clock $name was not in /dev/shm while the command ran"
[[ ! -e /dev/shm/$name && ! -e /dev/shm/sem.$name ]] || fail "kdet exec left $name in /dev/shm"
[[ $(orphans) == "$before" ]] || fail "kdet left shared clocks in /dev/shm: $(orphans)"
echo "ok: faketime_shared"
