#!/usr/bin/env bash
# tier: quick
# scan_db_compressed.sh: the scan database stores artifact bytes once per content (two inputs
# with the same bytes share one blob) and as zstd frames where that is smaller (PTX-like text
# is; random bytes stay raw), a varying job's other outputs as differences from the first one
# stored for its input (zstd-delta); every read checks the bytes against their hash after
# decompressing, so a damaged frame, a changed byte or a missing base is exit 2 naming the
# database, never a wrong diff. A version 1 database (raw blobs, no codec column) is read as it
# is and upgraded when a scan resumes it; the reports read its bytes either way.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/scan.bash"
need_fakes libfakenvvm.so
need_cmd sqlite3 "to read the database"
q() { sqlite3 "$1" "$2"; }
cp "$EX/nvvm/llvm7/saxpy.ll" "$T/a.ll"
cp "$EX/nvvm/llvm7/saxpy.ll" "$T/b.ll" # the same bytes: one blob for both jobs
cp "$EX/nvvm/llvm7/tiled_matmul.ll" "$T/c.ll"
manifest() { # MODE
  {
    printf 'inputs = ["a.ll", "b.ll", "c.ll"]\n[option_sets]\nO3 = ["-opt=3"]\n'
    nvvm_compiler fake "$1"
    printf '[setting]\nseed = 3\n[budget]\nmax_runs = 40\n'
  } >"$T/m.toml"
}

# echo: a.ll and b.ll give the same output, stored once.
manifest echo
"$KDET" scan "$T/m.toml" --db "$T/e.db" -j 2 --quiet --max-runs 4
arts=$(q "$T/e.db" "select count(*) from variant_artifacts")
blobs=$(q "$T/e.db" "select count(*) from blobs")
expect_eq "echo: artifacts" "$arts" 3
expect_eq "echo: blobs (a.ll and b.ll share one)" "$blobs" 2
expect_eq "echo: codecs" "$(q "$T/e.db" "select group_concat(distinct codec) from blobs")" "zstd"

# heaporder: every job varies; each distinct output stored once, compressed.
manifest heaporder
set +e
"$KDET" scan "$T/m.toml" --db "$T/z.db" -j 2 --quiet --report-html "$T/z.html"
rc=$?
set -e
((rc == 0 || rc == 1)) || fail "scan exit $rc"
arts=$(q "$T/z.db" "select count(*) from variant_artifacts")
blobs=$(q "$T/z.db" "select count(*) from blobs")
distinct=$(q "$T/z.db" "select count(distinct hash) from variant_artifacts")
expect_eq "blobs, one per distinct artifact" "$blobs" "$distinct"
expect_eq "codecs" "$(q "$T/z.db" "select group_concat(distinct codec) from (select codec from blobs order by codec)")" "zstd,zstd-delta"
expect_eq "one whole frame per input" "$(q "$T/z.db" "select count(*) from blobs where codec = 'zstd'")" 2
stored=$(q "$T/z.db" "select sum(length(data)) from blobs")
raw=$(q "$T/z.db" "select sum(size) from (select distinct hash, size from variant_artifacts)")
echo "scan_db_compressed: $blobs blobs, $raw bytes stored as $stored"
((stored * 2 < raw)) || fail "compressed blobs ($stored bytes) are not under half of the bytes ($raw)"
# The bytes come back: the report's classified diff of c.ll's two variants.
grep -q 'class="kdet-diff' "$T/z.html" || fail "the HTML report has no diff: the compressed bytes did not come back"
# JSON: the artifacts' hashes, as before.
"$KDET" scan --report "$T/z.db" --json "$T/z.json" --quiet || true
[[ $(json_eval "$T/z.json" "len([a for j in d['jobs'] for v in j['variants'] for a in v['artifacts']])") == "$arts" ]] ||
  fail "JSON artifacts"

# A damaged frame: exit 2 naming the database, from the report that reads the bytes.
cp "$T/z.db" "$T/bad.db"
h=$(q "$T/bad.db" "select hash from blobs where hash in (select hash from variant_artifacts a join variants v on v.job_id = a.job_id and v.id = a.variant where v.job_id in (select job_id from variants group by job_id having count(*) > 1)) limit 1")
[[ -n $h ]] || fail "no blob of a varying job"
q "$T/bad.db" "update blobs set data = substr(data, 1, length(data) - 8) || x'0102030405060708' where hash = '$h'"
expect_exit 2 "$KDET" scan --report "$T/bad.db" --report-html "$T/bad.html" --quiet
expect_output "database $T/bad.db: .*artifact ${h:0:12}.*not a sound scan database"
# A base gone: every difference from it is refused when the database is read.
cp "$T/z.db" "$T/nobase.db"
q "$T/nobase.db" "delete from blobs where hash in (select base from blobs where base != '' limit 1)"
expect_exit 2 "$KDET" scan --report "$T/nobase.db" --quiet
expect_output "database $T/nobase.db: artifact .* is stored as a difference from .*, whose bytes are not in its blobs"
# A codec kdet never writes.
cp "$T/z.db" "$T/codec.db"
q "$T/codec.db" "update blobs set codec = 'lz4' where hash = '$h'"
expect_exit 2 "$KDET" scan --report "$T/codec.db" --quiet
expect_output "stored with a codec kdet does not write"

# garbage: random bytes do not compress and stay raw.
manifest garbage
"$KDET" scan "$T/m.toml" --db "$T/g.db" -j 2 --quiet --max-runs 4 || true
[[ $(q "$T/g.db" "select count(*) from blobs where codec = 'raw'") -gt 0 ]] || fail "incompressible bytes were not kept raw"

# A version 1 database: raw blobs, no codec, log or kernels columns.
# Version 1 stored raw bytes; bytes kdet stores raw (incompressible ones) are that already, so
# a database of the garbage fake, stripped of the version 2 columns, is a version 1 database.
cp "$T/g.db" "$T/old.db"
q "$T/old.db" "alter table blobs drop column codec; alter table blobs drop column base; alter table blobs drop column size; alter table variants drop column log; alter table jobs drop column kernels; pragma user_version = 1;"
[[ $(q "$T/old.db" "pragma user_version") == 1 ]] || fail "could not make a version 1 database"
expect_exit 1 "$KDET" scan --report "$T/old.db" --report-html "$T/old.html" --quiet
[[ -s $T/old.html ]] || fail "no report of a version 1 database"
[[ $(q "$T/old.db" "pragma user_version") == 1 ]] || fail "a report changed a version 1 database"
# A resume upgrades it in place; its old raw blobs still read.
manifest garbage
set +e
"$KDET" scan "$T/m.toml" --db "$T/old.db" -j 2 --quiet --max-runs 6 --report-html "$T/old2.html"
rc=$?
set -e
((rc == 0 || rc == 1)) || fail "resume of a version 1 database: exit $rc"
expect_eq "upgraded version" "$(q "$T/old.db" "pragma user_version")" 3
expect_eq "old blobs kept raw" "$(q "$T/old.db" "select count(*) from blobs where codec is null")" 0
echo "scan_db_compressed: PASS"
