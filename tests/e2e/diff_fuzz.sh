#!/usr/bin/env bash
# tier: fuzz
# e2e: runs the diff fuzz targets (PTX and ELF readers) briefly (15 s each) through
# scripts/fuzz.sh, in the source tree's build-fuzz/ (shared with scripts/test.sh's fuzz phase).
# Exits 77 (skipped, with the reason) when clang++-14 or libFuzzer is missing.
source "$(dirname "$0")/lib/common.bash"
build=${KDET_FUZZ_BUILD_DIR:-$KDET_SOURCE_DIR/build-fuzz}
rc=0
TMPDIR=$T bash "$KDET_SOURCE_DIR/scripts/fuzz.sh" "${KDET_FUZZ_SECONDS:-15}" "$build" ptx_reader_fuzz elf_reader_fuzz || rc=$?
exit $rc
