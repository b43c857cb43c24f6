#!/usr/bin/env bash
# scripts/fuzz.sh: builds the libFuzzer targets (fuzz/*_fuzz.cpp) with clang-14 in their own
# tree, makes their seeds, and runs each for SECONDS (default 20).
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR] [TARGET...]   (BUILD_DIR default: build-fuzz;
#                                                       no TARGET: every target)
# Targets: ptx_reader_fuzz, elf_reader_fuzz, sass_reader_fuzz (kdet diff's readers), manifest_fuzz (scan
# manifests), scan_db_fuzz (arbitrary bytes opened as a scan database).
# Exit: 0 no finding, 1 a target crashed, leaked, hung or threw something other than
#       kdet::Error (the reproducer is kept in BUILD_DIR), 77 clang++-14 or libFuzzer is
#       missing (printed why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-20}
build=${2:-$root/build-fuzz}
shift $(( $# > 2 ? 2 : $# ))
cxx=${CXX_FUZZ:-clang++-14}
cc=${CC_FUZZ:-clang-14}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz: skipped: $cxx not found" >&2; exit 77
fi
mkdir -p "$build"
probe="$build/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$build/probe" 2>"$build/probe.log"; then
  echo "fuzz: skipped: $cxx cannot link libFuzzer (-fsanitize=fuzzer): $(head -c 300 "$build/probe.log")" >&2; exit 77
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" "${launcher[@]}" \
  -DKDET_BUILD_FUZZ=ON -DKDET_BUILD_TESTS=OFF -DKDET_BUILD_BENCH=OFF >/dev/null
# kdet itself (built the same way) writes the scan database seeds.
ninja -C "$build" ${KDET_BUILD_JOBS:+-j "$KDET_BUILD_JOBS"} kdet_fuzz_targets kdet >/dev/null

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$root"/fuzz/*_fuzz.cpp; do targets+=("$(basename "${f%.cpp}")"); done
fi

# Seeds, one folder per target, remade on every run (cheap).
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{ptx_reader_fuzz,elf_reader_fuzz,sass_reader_fuzz,manifest_fuzz,scan_db_fuzz}
cp "$root"/tests/data/sass/*.txt "$seeds/sass_reader_fuzz/"
cp "$root"/tests/data/diff/*.ptx "$seeds/ptx_reader_fuzz/"
for p in "$root"/examples/ptx/*.ptx; do cp "$p" "$seeds/ptx_reader_fuzz/example_$(basename "$p")"; done
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
if [ -x "$ptxas" ]; then
  for p in "$root"/tests/data/diff/*.ptx; do
    "$ptxas" -arch=sm_90a "$p" -o "$seeds/elf_reader_fuzz/$(basename "${p%.ptx}").cubin" 2>/dev/null || true
  done
  "$ptxas" -arch=sm_90a -lineinfo "$root/tests/data/diff/saxpy.ptx" -o "$seeds/elf_reader_fuzz/saxpy_lineinfo.cubin" 2>/dev/null || true
else
  echo "fuzz: note: $ptxas not found; the ELF target starts from an empty corpus" >&2
fi
cp "$root"/fuzz/seeds/manifest/*.toml "$seeds/manifest_fuzz/"
# A small database from a real scan: two inputs, an exec compiler that copies its input.
work=$(mktemp -d "${TMPDIR:-/tmp}/kdet-fuzz-seed.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'kernel a\n' >"$work/a.ll"
printf 'kernel b\n' >"$work/b.ll"
cat >"$work/m.toml" <<TOML
name = "seed"
inputs = ["*.ll"]
[[compiler]]
name = "cp"
backend = "exec"
command = "cp {input} {output}"
[budget]
max_runs = 4
first_round = 2
TOML
if ASAN_OPTIONS=detect_leaks=0 "$build/src/kdet" scan "$work/m.toml" --db "$seeds/scan_db_fuzz/scan.db" -q \
     >"$build/seed-scan.log" 2>&1; then
  :
else
  echo "fuzz: note: the seed scan failed (see $build/seed-scan.log); scan_db_fuzz starts from what it wrote" >&2
fi
rm -f "$seeds/scan_db_fuzz/"*-wal "$seeds/scan_db_fuzz/"*-shm "$seeds/scan_db_fuzz/"*-journal

max_len() {
  case $1 in
    manifest_fuzz) echo 8192 ;;
    *) echo 262144 ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  [ -x "$build/fuzz/$t" ] || { echo "fuzz: no target $t (fuzz/$t.cpp)" >&2; status=1; continue; }
  mkdir -p "$build/corpus/$t"
  echo "fuzz: running $t for ${seconds}s" >&2
  if ! (cd "$build" && ASAN_OPTIONS=detect_leaks=1 "./fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
          -max_len="$(max_len "$t")" -timeout=10 -print_final_stats=1 "corpus/$t" "seeds/$t" \
          >"$t.log" 2>&1); then
    echo "fuzz: $t FAILED; see $build/$t.log (reproducer: $build/crash-*, leak-*, timeout-*)" >&2
    tail -40 "$build/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/$t.log" | tail -2 >&2 || true
  fi
done
exit $status
