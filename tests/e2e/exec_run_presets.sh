#!/usr/bin/env bash
# tier: quick
# One meaning of "fixed": the variables `kdet exec --deterministic` sets for threadvars, locale,
# tz and time are those of kdet run's fixed levels (perturb/presets.hpp), byte for byte, so a
# build launched with kdet exec sees what kdet run called deterministic.
source "$(dirname "$0")/lib/common.bash"
command -v faketime >/dev/null || skip "faketime (libfaketime, for the time factor) not installed"
cd "$T"
cat >envc.sh <<'SH'
#!/bin/sh
# The environment a compile sees, for the factors both commands fix.
env | grep -E '^(LC_ALL|LANG|TZ|FAKETIME|FAKETIME_FMT|FAKETIME_NO_CACHE|DONT_FAKE_MONOTONIC|NO_FAKE_STAT|[A-Z]+_NUM_THREADS|VECLIB_MAXIMUM_THREADS|NPROC)=' | sort
SH
chmod +x envc.sh
echo x >in.txt
expect_exit 0 "$KDET" run in.txt --backend exec --cmd "$T/envc.sh {input}" -n 2 --process fresh \
  --locale fixed --tz fixed --threadvars fixed --time fixed --unnamed natural --out "$T/r" --no-reach
ls "$T"/r/variants/*/stdout >/dev/null || fail "kdet run kept no variant"
expect_eq "one variant" "$(ls -d "$T"/r/variants/*/ | wc -l)" 1
run_env=$(cat "$T"/r/variants/*/stdout)
exec_env=$("$KDET" exec --deterministic --fix threadvars,locale,tz,time -- "$T/envc.sh" in.txt)
[[ $run_env == "$exec_env" ]] || fail "kdet run's fixed environment and kdet exec's differ:
$(diff <(echo "$run_env") <(echo "$exec_env"))"
# Not vacuous: every fixed factor is there.
for v in LC_ALL=C LANG=C TZ=UTC0 FAKETIME_FMT=%s OMP_NUM_THREADS=1; do
  grep -qx "$v" <<<"$exec_env" || fail "$v missing from: $exec_env"
done
# --time names another instant in libfaketime's own form.
other=$("$KDET" exec --deterministic --fix time --time '2021-06-01 12:00:00' -- "$T/envc.sh")
grep -qx 'FAKETIME=@2021-06-01 12:00:00' <<<"$other" || fail "--time not given: $other"
! grep -q '^FAKETIME_FMT=' <<<"$other" || fail "--time's date form read as seconds: $other"
echo "$NAME: ok"
