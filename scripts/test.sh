#!/usr/bin/env bash
# The test command (CI runs it through .ci/run): installs what is missing, then runs these
# phases in order, each in its own build folder, and prints each phase's wall time and the 10
# slowest tests of each ctest run. Tests are picked by CTest label (tests/CMakeLists.txt: the
# tiers unit, quick, cuda, slow, fuzz, and threads):
#   plain  build/        sources match .clang-format; src/kdet's folders include only downwards
#                        (scripts/layers.py); no file over 600 lines, no function over 200
#                        (scripts/sizes.py); warnings are errors (KDET_WERROR); every tier
#                        but fuzz
#   tidy   build/        clang-tidy (.clang-tidy: bugprone-*, performance-* as errors) over src/,
#                        with build/'s compile commands (scripts/tidy.sh)
#   asan   build-asan/   AddressSanitizer + UndefinedBehaviorSanitizer: unit, quick and cuda
#   tsan   build-tsan/   ThreadSanitizer: the tests labelled threads (kdet's own threads at work)
#   fuzz   build-fuzz/   every libFuzzer target (fuzz/) for KDET_FUZZ_SECONDS each (default 60)
# Usage: scripts/test.sh [--phase NAME]... [CTEST_ARGS...]
#   no --phase: all five (what CI runs); --phase may repeat; other arguments go to every ctest
#   (e.g. -R e2e.run_cli). KDET_TEST_PHASES="plain asan" does the same as --phase.
# A sanitized phase fails when any process left a report in <build>/sanitizer-logs/ (workers
# and compilers write stderr into compiler logs, so the reports go to files); its tests that
# cannot run sanitized are skipped with their reason (tests/sanitizers.cmake).
# Nothing is skipped by a clock: every phase asked for runs whole. A phase that cannot run
# (clang-tidy, clang-14 or libFuzzer missing) fails, as a failing test does.
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

jobs=$(nproc)

# Building and running needs (setup.sh), and what the tests need besides (--test: checkers,
# sanitizer runtimes, libFuzzer, Chromium, Slurm, cvise, numba).
"$root/scripts/setup.sh" --test || exit 1

# Every build goes through ccache (setup.sh installs it). Paths under the checkout are hashed
# relative to it, so a fresh clone elsewhere hits what an earlier one stored.
launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

# What every test build is: RelWithDebInfo (-O2 as users' Release builds, with line tables for
# a failure's stack) with the tests; a user's build (scripts/build.sh alone) has neither.
test_build=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DKDET_BUILD_TESTS=ON)

# build DIR CMAKE_ARGS...: configures and builds DIR.
build() {
  local dir=$1; shift
  KDET_BUILD_DIR=$dir "$root/scripts/build.sh" "${launcher[@]}" "${test_build[@]}" "$@"
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

# run_ctest DIR ARGS...: ctest in DIR with its output kept in DIR/ctest-output.txt, then the 10
# slowest tests of the run.
run_ctest() {
  local dir=$1; shift
  local out=$dir/ctest-output.txt rc
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@" "${ctest_args[@]}") 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  echo "test.sh: the 10 slowest tests in $dir:"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+.* ([0-9.]+) sec$/\2 \1/p' "$out" |
    sort -rn | head -10 | awk '{printf "  %8.1f s  %s\n", $1, $2}'
  return "$rc"
}

phase_plain() {
  "$root/scripts/check-format.sh" || return 1
  python3 "$root/scripts/layers.py" || return 1
  python3 "$root/scripts/sizes.py" || return 1
  build "$root/build" -DKDET_WERROR=ON -DKDET_BUILD_BENCH=ON || return 1
  run_ctest "$root/build" -LE '^fuzz$'
}

phase_tidy() {
  # Configuring is enough (compile_commands.json and the generated headers); the plain phase's
  # own options, so that a later plain build does not reconfigure.
  cmake -S "$root" -B "$root/build" -G Ninja "${test_build[@]}" "${launcher[@]}" \
    -DKDET_WERROR=ON -DKDET_BUILD_BENCH=ON >/dev/null || return 1
  local rc=0
  "$root/scripts/tidy.sh" "$root/build" || rc=$?
  if ((rc == 77)); then
    echo "test.sh: phase tidy cannot run: clang-tidy is not installed (scripts/setup.sh installs it)" >&2
  fi
  ((rc == 0))
}

phase_asan() {
  local dir=$root/build-asan
  build "$dir" -DKDET_ENABLE_ASAN=ON -DKDET_ENABLE_UBSAN=ON -DKDET_BUILD_BENCH=OFF || return 1
  rm -rf "$dir/sanitizer-logs" && mkdir -p "$dir/sanitizer-logs"
  local rc=0
  run_ctest "$dir" -L '^(unit|quick|cuda)$' || rc=1
  check_sanitizer_logs "$dir" || rc=1
  return $rc
}

phase_tsan() {
  local dir=$root/build-tsan
  build "$dir" -DKDET_ENABLE_TSAN=ON -DKDET_BUILD_BENCH=OFF || return 1
  rm -rf "$dir/sanitizer-logs" && mkdir -p "$dir/sanitizer-logs"
  local rc=0
  run_ctest "$dir" -L '^threads$' || rc=1
  check_sanitizer_logs "$dir" || rc=1
  return $rc
}

phase_fuzz() {
  local rc=0
  "$root/scripts/fuzz.sh" "${KDET_FUZZ_SECONDS:-60}" "$root/build-fuzz" || rc=$?
  # 77: clang-14 or libFuzzer absent (fuzz.sh said which); setup.sh installs both.
  ((rc == 0))
}

summary=()
failed=()
for p in "${phases[@]}"; do
  echo "==== test.sh: phase $p ($(date -u +%H:%M:%S) UTC)"
  start=$SECONDS
  "phase_$p"
  rc=$?
  if ((rc == 0)); then
    status=passed
  else
    status=FAILED
    failed+=("$p")
  fi
  summary+=("$(printf '%-6s %-7s %5d s' "$p" "$status" $((SECONDS - start)))")
done
echo "==== test.sh: summary (wall time per phase; $SECONDS s in all)"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "test.sh: failed phases: ${failed[*]}" >&2
  exit 1
fi
