#!/usr/bin/env bash
# The test command (CI runs it through .ci/run): installs what is missing, then runs these
# phases in order, each in its own build folder, and prints each phase's wall time:
#   plain  build/        sources match .clang-format; src/kdet's folders include only downwards
#                        (scripts/layers.py); warnings are errors (KDET_WERROR); every unit
#                        and end-to-end test
#   tidy   build/        clang-tidy (.clang-tidy: bugprone-*, performance-* as errors) over src/,
#                        with build/'s compile commands (scripts/tidy.sh); skipped, saying so, when
#                        clang-tidy is absent
#   asan   build-asan/   AddressSanitizer + UndefinedBehaviorSanitizer; every unit and e2e test
#   tsan   build-tsan/   ThreadSanitizer; the tests of kdet's threads (KDET_TSAN_TESTS below)
#   fuzz   build-fuzz/   every libFuzzer target (fuzz/) for KDET_FUZZ_SECONDS each (default 60)
# Usage: scripts/test.sh [--phase NAME]... [CTEST_ARGS...]
#   no --phase: all five (what CI runs); --phase may repeat; other arguments go to every ctest
#   (e.g. -R e2e.run_cli). KDET_TEST_PHASES="plain asan" does the same as --phase.
# End-to-end tests labelled "fuzz" (tests/e2e/*fuzz*.sh) run in the fuzz phase only.
# A sanitized phase fails when any process left a report in <build>/sanitizer-logs/ (workers
# and compilers write stderr into compiler logs, so the reports go to files); its tests that
# cannot run sanitized are skipped with their reason (tests/sanitizers.cmake).
# Time budget: with KDET_TEST_BUDGET_S (default 5000 s when CI is set, CI's limit being 90 minutes;
# none otherwise) a phase after the first starts only while enough of it is left (tidy 900 s, asan
# 1500 s, tsan 700 s, fuzz 500 s), and a phase's tests are stopped when it runs out. Either is printed as
# "skipped (time budget)" or "cut (time budget)", never silently; a test that failed before the
# cut still fails the phase.
# Exit: 0 every phase passed, 1 otherwise (the summary names the failed phases).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

phases=()
ctest_args=()
while (($#)); do
  case $1 in
    --phase) phases+=("${2:?--phase needs one of plain, tidy, asan, tsan, fuzz}"); shift 2 ;;
    --phase=*) phases+=("${1#--phase=}"); shift ;;
    *) ctest_args+=("$1"); shift ;;
  esac
done
if ((${#phases[@]} == 0)); then
  read -r -a phases <<<"${KDET_TEST_PHASES:-plain tidy asan tsan fuzz}"
fi
for p in "${phases[@]}"; do
  case $p in
    plain | tidy | asan | tsan | fuzz) ;;
    *) echo "test.sh: unknown phase '$p'; valid: plain, tidy, asan, tsan, fuzz" >&2; exit 2 ;;
  esac
done

# The tests of kdet's own threads: the scan database writer thread and scan's scheduler pool
# (scan_* e2e, unit Scan*, Store*), the cache under concurrent writers (cache_* e2e, unit Cache*),
# and the runner's parallel slots and hashing thread (run_* e2e, unit Runner*).
KDET_TSAN_TESTS=${KDET_TSAN_TESTS:-'^(unit\.(Scan|Store|Cache|Runner|Ddmin)[A-Za-z]*\.|e2e\.(scan_|cache_|run_|reduce))'}
jobs=$(nproc)
budget=${KDET_TEST_BUDGET_S:-}
if [[ -z $budget && -n ${CI:-} ]]; then budget=5000; fi
declare -A phase_needs=([plain]=0 [tidy]=900 [asan]=1500 [tsan]=700 [fuzz]=500)
# left: seconds of the budget left (a large number when there is no budget).
left() { if [[ -n $budget ]]; then echo $((budget - SECONDS)); else echo 1000000000; fi; }

"$root/scripts/setup.sh" || exit 1

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

# build DIR CMAKE_ARGS...: configures and builds DIR.
build() {
  local dir=$1; shift
  KDET_BUILD_DIR=$dir "$root/scripts/build.sh" "${launcher[@]}" "$@"
}

# check_sanitizer_logs DIR: fails when any sanitizer report was written. A log with no error in
# it (LeakSanitizer's "thread was not suspended" note, from processes in a PID namespace) is shown
# but is not a report.
check_sanitizer_logs() {
  local logs=$1/sanitizer-logs rc=0 f
  if [[ -f $1/sanitizer-skips.txt ]]; then
    echo "test.sh: skipped in this build, with why:"
    sed 's/^/  /' "$1/sanitizer-skips.txt"
  fi
  compgen -G "$logs/*" >/dev/null || return 0
  for f in "$logs"/*; do
    if grep -Eq 'ERROR: |runtime error:|WARNING: ThreadSanitizer|SUMMARY: ' "$f"; then
      echo "test.sh: sanitizer report $f:" >&2
      head -60 "$f" >&2
      rc=1
    else
      echo "test.sh: sanitizer note (not a report) $f: $(head -c 300 "$f" | tr '\n' ' ')"
    fi
  done
  return $rc
}

# run_ctest DIR ARGS...: ctest in DIR, stopped when the time budget runs out. A cut run fails only
# when a test that finished before the cut failed (ctest prints each result as it ends).
run_ctest() {
  local dir=$1; shift
  local out=$dir/ctest-output.txt rc
  local limit=$(($(left) - 60))
  ((limit > 60)) || limit=60
  (cd "$dir" && timeout --signal=TERM --kill-after=30 "$limit" \
    ctest --output-on-failure -j "$jobs" "$@" "${ctest_args[@]}") 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  if ((rc == 124 || rc == 137)); then
    echo "test.sh: cut (time budget): ctest in $dir stopped after ${limit} s; tests not reached did not run"
    cut_phases+=("$current_phase")
    ! grep -Eq '\*\*\*(Failed|Exception)|\*\*\*Timeout| Failed +[0-9.]+ sec' "$out"
    return
  fi
  return "$rc"
}

phase_plain() {
  "$root/scripts/check-format.sh" || return 1
  python3 "$root/scripts/layers.py" || return 1
  build "$root/build" -DKDET_WERROR=ON || return 1
  run_ctest "$root/build" -LE fuzz
}

# Exit 77 from a phase: skipped; the phase printed why, and sets skip_reason for the summary.
phase_tidy() {
  # Configuring is enough (compile_commands.json and the generated headers); the plain phase's
  # own options, so that a later plain build does not reconfigure.
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DKDET_WERROR=ON >/dev/null || return 1
  local rc=0
  "$root/scripts/tidy.sh" "$root/build" || rc=$?
  if ((rc == 77)); then
    skip_reason="clang-tidy is not installed"
    echo "test.sh: phase tidy skipped: $skip_reason (scripts/setup.sh installs clang-tidy)"
    return 77
  fi
  ((rc == 0))
}

phase_asan() {
  local dir=$root/build-asan
  build "$dir" -DKDET_ENABLE_ASAN=ON -DKDET_ENABLE_UBSAN=ON -DKDET_BUILD_BENCH=OFF || return 1
  rm -rf "$dir/sanitizer-logs" && mkdir -p "$dir/sanitizer-logs"
  local rc=0
  run_ctest "$dir" -LE fuzz || rc=1
  check_sanitizer_logs "$dir" || rc=1
  return $rc
}

phase_tsan() {
  local dir=$root/build-tsan
  build "$dir" -DKDET_ENABLE_TSAN=ON -DKDET_BUILD_BENCH=OFF || return 1
  rm -rf "$dir/sanitizer-logs" && mkdir -p "$dir/sanitizer-logs"
  local rc=0
  run_ctest "$dir" -LE fuzz -R "$KDET_TSAN_TESTS" || rc=1
  check_sanitizer_logs "$dir" || rc=1
  return $rc
}

phase_fuzz() {
  local rc=0
  "$root/scripts/fuzz.sh" "${KDET_FUZZ_SECONDS:-60}" "$root/build-fuzz" || rc=$?
  # 77: clang-14 or libFuzzer absent; setup.sh installs both, so in CI that is a failure.
  ((rc == 0))
}

summary=()
failed=()
cut_phases=()
first=1
for p in "${phases[@]}"; do
  current_phase=$p
  if ((!first && $(left) < ${phase_needs[$p]})); then
    echo "==== test.sh: phase $p skipped (time budget): $(left) s of ${budget} s left, it needs about ${phase_needs[$p]} s"
    summary+=("$(printf '%-6s %-7s %5d s  (time budget)' "$p" skipped 0)")
    continue
  fi
  first=0
  echo "==== test.sh: phase $p ($(date -u +%H:%M:%S) UTC)"
  start=$SECONDS
  skip_reason=""
  "phase_$p"
  rc=$?
  note=""
  if ((rc == 0)); then
    status=passed
  elif ((rc == 77)); then
    status=skipped
    note="  ($skip_reason)"
  else
    status=FAILED
    failed+=("$p")
  fi
  [[ " ${cut_phases[*]} " == *" $p "* ]] && note="  (cut: time budget)"
  summary+=("$(printf '%-6s %-7s %5d s%s' "$p" "$status" $((SECONDS - start)) "$note")")
done
echo "==== test.sh: summary (wall time per phase)"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "test.sh: failed phases: ${failed[*]}" >&2
  exit 1
fi
