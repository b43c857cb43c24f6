#!/usr/bin/env bash
# tier: quick
# reprotest's variations that kdet covers with factors of their own: the timezone (tz), HOME
# (home), the CPUs a compile may run on (cpus: the affinity mask) and the host and domain name
# (hostname: a UTS namespace of the worker's own). pid is left natural: the fake does not read it. fake_cc's host mode prints all four into its
# output. Each varied alone (every other factor fixed) must make it vary, fixed must not; explain
# must name exactly these four. The machine's own host name must not change.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
echo 'kernel' >"$T/in.txt"
CMD="$FAKES/fake_cc host {input} {output}"
host_before=$(uname -n)
domain_before=$(cat /proc/sys/kernel/domainname)
declare -A fixed=([heap]=none [aslr]=off [path]=fixed [cwd]=fixed [tmpdir]=fixed [time]=real
  [locale]=fixed [umask]=fixed [threadvars]=fixed [mtime]=real [tz]=fixed
  [home]=fixed [cpus]=fixed [hostname]=fixed)
# levels FACTOR LEVEL: every factor fixed but FACTOR at LEVEL.
levels() {
  local k
  for k in "${!fixed[@]}"; do
    if [[ $k == "$1" ]]; then echo "--$k $2"; else echo "--$k ${fixed[$k]}"; fi
  done
}
factors=(tz home)
(($(nproc) >= 2)) && factors+=(cpus)
uts=no
if unshare --uts true 2>/dev/null; then uts=yes; factors+=(hostname); fi
# shellcheck disable=SC2046
expect_exit 0 "$KDET" run "$T/in.txt" --cmd "$CMD" -n 4 --seed 1 $(levels none none)
expect_output 'NO VARIANCE SEEN in 4 runs'
for f in "${factors[@]}"; do
  # shellcheck disable=SC2046
  expect_exit 1 "$KDET" run "$T/in.txt" --cmd "$CMD" -n 8 --seed 5 $(levels "$f" vary)
  expect_output 'NONDETERMINISTIC'
  # shellcheck disable=SC2046
  expect_exit 0 "$KDET" run "$T/in.txt" --cmd "$CMD" -n 8 --seed 5 $(levels "$f" fixed)
  expect_output 'NO VARIANCE SEEN in 8 runs'
done

expect_exit 1 "$KDET" explain "$T/in.txt" --cmd "$CMD" --seed 3 --json "$T/ex.json"
want=$(python3 -c 'import sys; print(sorted(sys.argv[1:]))' "${factors[@]}")
expect_eq necessary "$(python3 -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))["necessary"]))' "$T/ex.json")" "$want"
expect_eq cause "$(python3 -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))["cause"]))' "$T/ex.json")" "$want"
expect_output 'each of them alone makes it vary'

expect_eq "the machine's host name" "$(uname -n)" "$host_before"
expect_eq "the machine's domain name" "$(cat /proc/sys/kernel/domainname)" "$domain_before"
echo "ok: tz, home, cpus and hostname (uts namespaces: $uts)"
