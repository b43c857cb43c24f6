#!/usr/bin/env bash
# A kdet whose file is replaced while it runs (a package upgrade, a rebuild: both rename a new
# file over the old one) goes on starting workers of its own binary, not of the new file: the
# runs after the replacement are compiles like the ones before, not infra errors of a worker
# that speaks another protocol or is no kdet at all. The workers still show kdet's path.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
IN=$EX/nvvm/llvm7/saxpy.ll
mkdir "$T/bin"
cp "$KDET" "$T/bin/kdet"

# 40 fresh workers of a 20 ms compile: the replacement lands after the first worker and long
# before the last.
"$T/bin/kdet" run "$IN" --lib "$FAKES/libfakenvvm.so" -n 40 --process fresh --json "$T/run.json" \
  -- -fake-mode=slow >"$T/run.out" 2>&1 &
kpid=$!
# A worker lives about 25 ms: its command line is read as soon as it is seen.
argv=
for ((i = 0; i < 600; i++)); do
  for w in $(test_pids __worker); do
    argv=$(tr '\0' ' ' <"/proc/$w/cmdline" 2>/dev/null) && [[ -n $argv ]] && break
  done
  [[ -n $argv ]] && break
  sleep 0.02
done
[[ -n $argv ]] || fail "no worker seen within 12 s"
[[ $argv == "$T/bin/kdet __worker "* ]] || fail "a worker's command line does not name kdet's path: $argv"
printf '#!/bin/sh\necho "not kdet" >&2\nexit 3\n' >"$T/bin/kdet.new"
chmod +x "$T/bin/kdet.new"
mv "$T/bin/kdet.new" "$T/bin/kdet"
rc=0
wait "$kpid" || rc=$?
[[ $rc == 0 ]] || { cat "$T/run.out" >&2; fail "kdet run exited $rc after its file was replaced"; }
expect_eq "runs ok of 40, verdict" "$(json_eval "$T/run.json" 'd["runs"]["ok"], d["verdict"]')" "(40, 'deterministic')"
grep -q 'not kdet' "$T/run.out" && fail "a worker ran the replaced file"
echo "run_binary_replaced: OK"
