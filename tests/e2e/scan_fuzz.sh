#!/usr/bin/env bash
# tier: fuzz
# e2e: runs the scan fuzz targets briefly (15 s each) through scripts/fuzz.sh, in the source
# tree's build-fuzz/: the manifest parser, and arbitrary bytes opened as a scan database
# (seeded with a database a real scan wrote). A finding (crash, leak, hang, or an exception
# other than kdet::Error, i.e. an exit 70 in the CLI) fails the test.
# Exits 77 (skipped, with the reason) when clang++-14 or libFuzzer is missing.
source "$(dirname "$0")/lib/common.bash"
build=${KDET_FUZZ_BUILD_DIR:-$KDET_SOURCE_DIR/build-fuzz}
rc=0
TMPDIR=$T bash "$KDET_SOURCE_DIR/scripts/fuzz.sh" "${KDET_FUZZ_SECONDS:-15}" "$build" manifest_fuzz scan_db_fuzz || rc=$?
exit $rc
