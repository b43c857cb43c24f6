#!/usr/bin/env bash
# scripts/fuzz.sh: builds the diff fuzz targets with clang-14 + libFuzzer in their own
# folder and runs each for SECONDS (default 20) from a seed corpus.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR]      (BUILD_DIR default: build-fuzz)
# Exit: 0 no crash, 1 a target crashed (the reproducer is kept in BUILD_DIR),
#       77 clang++-14 or libFuzzer is missing (printed why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-20}
build=${2:-$root/build-fuzz}
cxx=${CXX_FUZZ:-clang++-14}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz: skipped: $cxx not found" >&2; exit 77
fi
mkdir -p "$build"
probe="$build/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$build/probe" 2>"$build/probe.log"; then
  echo "fuzz: skipped: $cxx cannot link libFuzzer (-fsanitize=fuzzer): $(head -c 300 "$build/probe.log")" >&2; exit 77
fi

flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address -fno-omit-frame-pointer -I"$root/src")
libs=(-lfmt -lelf)
diff_src=("$root"/src/kdet/diff/*.cpp)
# Compile the shared sources once, then link each target.
objs=()
for src in "${diff_src[@]}"; do
  obj="$build/$(basename "${src%.cpp}").o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/src/kdet/diff" -name '*.hpp' -newer "$obj")" ]; then
    "$cxx" "${flags[@]}" -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
for t in ptx_reader_fuzz elf_reader_fuzz; do
  "$cxx" "${flags[@]}" "$root/fuzz/$t.cpp" "${objs[@]}" "${libs[@]}" -o "$build/$t"
done

# Seeds: the committed PTX; cubins made by ptxas when it is there.
mkdir -p "$build/seeds/ptx" "$build/seeds/elf" "$build/corpus/ptx" "$build/corpus/elf"
cp "$root"/tests/data/diff/*.ptx "$build/seeds/ptx/"
cp "$root"/examples/ptx/*.ptx "$build/seeds/ptx/" 2>/dev/null || true
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
if [ -x "$ptxas" ]; then
  for p in "$root"/tests/data/diff/*.ptx; do
    "$ptxas" -arch=sm_90a "$p" -o "$build/seeds/elf/$(basename "${p%.ptx}").cubin" 2>/dev/null || true
  done
  "$ptxas" -arch=sm_90a -lineinfo "$root/tests/data/diff/saxpy.ptx" -o "$build/seeds/elf/saxpy_lineinfo.cubin" 2>/dev/null || true
else
  echo "fuzz: note: $ptxas not found; the ELF target starts from an empty corpus" >&2
fi

status=0
for t in ptx_reader_fuzz elf_reader_fuzz; do
  kind=${t%%_*}
  [ "$kind" = ptx ] || kind=elf
  echo "fuzz: running $t for ${seconds}s" >&2
  if ! (cd "$build" && ASAN_OPTIONS=detect_leaks=1 "./$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
          -max_len=262144 -timeout=10 -print_final_stats=1 "corpus/$kind" "seeds/$kind" \
          >"$t.log" 2>&1); then
    echo "fuzz: $t FAILED; see $build/$t.log (reproducer: $build/crash-*)" >&2
    tail -40 "$build/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/$t.log" | tail -2 >&2 || true
  fi
done
exit $status
