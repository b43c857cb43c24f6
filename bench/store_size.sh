#!/usr/bin/env bash
# Scan database size of two kdet binaries side by side: the census of docs/PERFORMANCE.md ("kdet
# scan: database size"), KERNELS generated kernels (--size mixed --seed 7) x targets 80, 90a x
# -opt=3 on the real libNVVM, 3 fresh-process runs a job, scanned by A into a.db and by B into
# b.db. Prints, for each side, the file's bytes per job and where they go (SQLite's dbstat: each
# table and index, and the file's free pages), the time of the reads of that size (scan
# --report to JSON and HTML, compare with itself, merge into a new file; each binary reads its
# own database), then B / A for the bytes per job and for each read, and both sides'
# bytes extrapolated to the 12,982 jobs of the issue-46 census (6491 kernels x 2 targets).
# Usage: bench/store_size.sh KDET_A KDET_B [KERNELS (default 300)] [JOBS (default: nproc)]
# Needs libNVVM (KDET_NVVM_LIB, else under $CUDA_HOME or /usr/local/cuda) and sqlite3 with
# dbstat; exit 77 without them.
set -euo pipefail
a=$(realpath "${1:?kdet A}")
b=$(realpath "${2:?kdet B}")
kernels=${3:-300}
jobs=${4:-$(nproc)}
census_jobs=12982
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=${KDET_NVVM_LIB:-}
for c in "$cuda/lib64/libnvvm.so" "$cuda/nvvm/lib64/libnvvm.so" "$cuda/lib/libnvvm.so"; do
  [[ -z $lib && -e $c ]] && lib=$c
done
[[ -n $lib ]] || { echo "store_size: no libnvvm.so under $cuda (set KDET_NVVM_LIB)" >&2; exit 77; }
command -v sqlite3 >/dev/null || { echo "store_size: no sqlite3 to read dbstat" >&2; exit 77; }
sqlite3 :memory: "select count(*) from dbstat" >/dev/null 2>&1 ||
  { echo "store_size: this sqlite3 has no dbstat table" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$a" corpus --out "$T/corpus" --count "$kernels" --size mixed --seed 7 >/dev/null
cat >"$T/m.toml" <<EOF
inputs = ["corpus/*.ll"]
targets = ["80", "90a"]
[option_sets]
O3 = ["-opt=3"]
[[compiler]]
name = "nvvm"
backend = "nvvm"
lib = "$lib"
[setting]
process = "fresh"
seed = 1
[budget]
max_runs = 3
first_round = 3
EOF
now() { date +%s.%N; }
declare -A per_job secs
echo "store_size: $kernels kernels x 80, 90a, 3 fresh runs a job, $jobs slots, libNVVM $lib"
for side in A B; do
  bin=$a
  [[ $side == B ]] && bin=$b
  db=$T/$side.db
  t0=$(now)
  rc=0
  (cd "$T" && "$bin" scan m.toml --db "$db" -j "$jobs" --quiet) || rc=$?
  # 1 is a scan that found variance; 2 and up mean no census was stored.
  ((rc < 2)) || { echo "store_size: $side's scan exited $rc" >&2; exit 1; }
  t1=$(now)
  n=$(sqlite3 "$db" "select count(*) from jobs")
  runs=$(sqlite3 "$db" "select count(*) from runs")
  size=$(stat -c %s "$db")
  per_job[$side]=$(python3 -c "print($size / $n)")
  printf '%s: %s jobs, %s runs, scan %.1f s; file %s B = %.0f B a job (schema %s); %s B extrapolated to %s jobs\n' \
    "$side" "$n" "$runs" "$(python3 -c "print($t1 - $t0)")" "$size" "${per_job[$side]}" \
    "$(sqlite3 "$db" "pragma user_version")" \
    "$(python3 -c "print(round(${per_job[$side]} * $census_jobs))")" "$census_jobs"
  sqlite3 "$db" "select name, sum(pgsize) from dbstat group by name order by 2 desc" |
    while IFS='|' read -r name bytes; do
      printf '  %-28s %10s B  %8.0f B a job\n' "$name" "$bytes" "$(python3 -c "print($bytes / $n)")"
    done
  free=$(sqlite3 "$db" "select (select freelist_count from pragma_freelist_count) * (select page_size from pragma_page_size)")
  printf '  %-28s %10s B\n' "free pages" "$free"
  sqlite3 "$db" "select '  blobs by codec: ' || group_concat(codec || ' ' || n || ' (' || bytes || ' B)', ', ') from (select codec, count(*) n, sum(length(data)) bytes from blobs group by codec)"
  # The reads, each three times (the fastest kept): they load the whole database.
  for read in report compare merge; do
    best=
    for _ in 1 2 3; do
      rm -f "$T/out.db"
      t0=$(now)
      case $read in
      report) "$bin" scan --report "$db" --no-reach --json "$T/r.json" --report-html "$T/r.html" -q || true ;;
      compare) "$bin" compare "$db" "$db" --json "$T/c.json" >/dev/null 2>&1 || true ;;
      merge) "$bin" merge "$T/out.db" "$db" -q || true ;;
      esac
      t=$(python3 -c "print($(now) - $t0)")
      want=$T/out.db
      [[ $read == report ]] && want=$T/r.json
      [[ $read == compare ]] && want=$T/c.json
      [[ -s $want ]] || { echo "store_size: $side's $read wrote no ${want##*/}" >&2; exit 1; }
      rm -f "$T/r.json" "$T/c.json"
      best=$(python3 -c "print(min(x for x in [$t, ${best:-$t}]))")
    done
    secs[$side.$read]=$best
    printf '  %-8s %.3f s\n' "$read" "$best"
  done
done
printf 'B / A: bytes a job %.3f (%.0f -> %.0f B); report %.2f, compare %.2f, merge %.2f\n' \
  "$(python3 -c "print(${per_job[B]} / ${per_job[A]})")" "${per_job[A]}" "${per_job[B]}" \
  "$(python3 -c "print(${secs[B.report]} / ${secs[A.report]})")" \
  "$(python3 -c "print(${secs[B.compare]} / ${secs[A.compare]})")" \
  "$(python3 -c "print(${secs[B.merge]} / ${secs[A.merge]})")"
