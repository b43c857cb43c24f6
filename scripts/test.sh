#!/usr/bin/env bash
# The test command: installs what is missing, builds everything, runs every
# test (unit and end-to-end, against the real CUDA compilers where present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${KDET_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
