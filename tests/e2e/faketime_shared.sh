#!/usr/bin/env bash
# tier: quick
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
# ours CMD...: runs CMD, noting its pid in $T/pids (with the workers' pids, from --json, the
# owners of every shared clock this test's kdet processes make).
touch "$T/pids"
ours() {
  "$@" &
  echo $! >>"$T/pids"
  wait $!
}
# left: the shared clocks of this test's processes (named after their owner's pid) that outlived
# their owner. Other tests' are never looked at: those come and go meanwhile, and one whose kdet
# was killed (tests do so) stays until the next kdet start removes it. The object is looked for
# again after its owner was seen gone: the owner removes it just before it ends.
left() {
  local n pid
  for n in $(ls /dev/shm | sed -n 's/^\(sem\.\)\{0,1\}\(kdet-ft-[0-9]\{10\}-.*\)/\2/p' | sort -u); do
    pid=$((10#${n:8:10}))
    grep -qx "$pid" "$T/pids" || continue
    kill -0 "$pid" 2>/dev/null && continue
    [[ -e /dev/shm/$n || -e /dev/shm/sem.$n ]] && echo "$n"
  done
  return 0
}

# What /dev/shm held before: libfaketime's pid-named objects of other processes (a faketime'd
# compile killed by a timeout leaves its own) stay there for ever, and a worker of this test can
# reuse such a pid. Only an object that appeared during the run is this test's.
ls /dev/shm >"$T/shm.before"
# Natural pids of several digits' lengths, ASLR off, time fixed: a compiler that follows only its
# load address must give one output (libfaketime's own pid-named objects made it vary).
expect_exit 0 ours "$KDET" run "$IN" --lib "$FAKE" -n 24 --process fresh --aslr off --time fixed \
  --pid vary --heap none --unnamed natural --json "$T/r.json" -- -fake-mode=loadaddr
json_eval "$T/r.json" '"\n".join(str(r["worker_pid"]) for r in d["records"])' >>"$T/pids"
# No object named after any worker's pid, and none of kdet's own, outlives the run.
for pid in $(json_eval "$T/r.json" '" ".join(str(r["worker_pid"]) for r in d["records"])'); do
  for obj in faketime_shm_$pid sem.faketime_sem_$pid; do
    [[ -e /dev/shm/$obj ]] && ! grep -qx "$obj" "$T/shm.before" &&
      fail "libfaketime's object $obj of worker $pid was left in /dev/shm"
  done
done

# The exec backend and kdet exec: the compile sees kdet's clock, and it is gone afterwards.
# (--unnamed natural: no probes, so the JSON names the worker of every compile, whose clock it is.)
expect_exit 0 ours "$KDET" run "$IN" --cmd "$CC echo {input} {output}" -n 4 --time fixed \
  --unnamed natural --json "$T/e.json"
json_eval "$T/e.json" '"\n".join(str(r["worker_pid"]) for r in d["records"])' >>"$T/pids"
expect_exit 0 ours "$KDET" exec --deterministic --fix time -- sh -c 'echo "shared=$FAKETIME_SHARED"; ls /dev/shm'
name=$(sed -n 's|^shared=/\(kdet-ft-[0-9a-f-]*\) .*|\1|p' "$T/out")
[[ -n $name ]] || fail "kdet exec --fix time did not hand the command kdet's shared clock"
grep -qx "$name" "$T/out" || fail "the shared clock $name was not in /dev/shm while the command ran"
[[ ! -e /dev/shm/$name && ! -e /dev/shm/sem.$name ]] || fail "kdet exec left $name in /dev/shm"
[[ -z $(left) ]] || fail "kdet left shared clocks in /dev/shm: $(left)"
echo "ok: faketime_shared"
