#!/usr/bin/env bash
# Configures and builds kdet into build/ (or $KDET_BUILD_DIR). Extra args go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KDET_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C "$build" ${KDET_BUILD_JOBS:+-j "$KDET_BUILD_JOBS"}
