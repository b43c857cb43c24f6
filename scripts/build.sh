#!/usr/bin/env bash
# Configures and builds kdet into build/ (or $KDET_BUILD_DIR). Extra args go to cmake.
# A new folder is a Release build of what is installed (no tests, no benchmarks); developers add
# -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKDET_BUILD_TESTS=ON (what scripts/test.sh builds). A folder
# keeps the type and options it was configured with until an argument changes them.
# Install: cmake --install build --strip --prefix P
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KDET_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
ninja -C "$build" ${KDET_BUILD_JOBS:+-j "$KDET_BUILD_JOBS"}
