#!/usr/bin/env bash
# e2e: runs the diff fuzz targets briefly (15 s each) through scripts/fuzz.sh.
# Exits 77 (skipped, with the reason) when clang++-14 or libFuzzer is missing.
set -euo pipefail
: "${KDET_SOURCE_DIR:?KDET_SOURCE_DIR must point to the source tree}"
build=${KDET_BINARY_DIR:-$(mktemp -d)}/fuzz-e2e
exec bash "$KDET_SOURCE_DIR/scripts/fuzz.sh" "${KDET_FUZZ_SECONDS:-15}" "$build"
