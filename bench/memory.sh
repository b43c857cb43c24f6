#!/usr/bin/env bash
# Peak memory against output size: `kdet run` on a command that writes N MiB to
# {output}, and `kdet diff` on two PTX modules whose kernels are shuffled. Peak
# RSS is GNU time's "Maximum resident set size": the largest of kdet and every
# process it waited for (workers, the compiler).
#   bench/memory.sh [BUILD_DIR] [RUN_SIZES_MB] [DIFF_SIZES_MB]
# e.g. bench/memory.sh build "10 100 300" "5 50"
set -euo pipefail
build=${1:-build}
run_sizes=${2:-"10 100 300"}
diff_sizes=${3:-"5 50"}
kdet=$(realpath "$build/src/kdet")
gen=$(realpath "$(dirname "$0")/memory_inputs.py")
T=$(mktemp -d "${TMPDIR:-/tmp}/kdet-bench-mem.XXXXXX")
trap 'rm -rf "$T"' EXIT
df -h "$T" | tail -1 | awk '{print "disk free in '"$T"': " $4}'

cat >"$T/big.sh" <<SH
#!/bin/sh
exec python3 "$gen" write "\$2" "\$1"
SH
chmod +x "$T/big.sh"
echo input >"$T/in.txt"

measure() { # label, command... -> a table row: peak RSS, wall, exit code
  local label=$1; shift
  set +e
  /usr/bin/time -f '%M %e' -o "$T/time" "$@" >"$T/out" 2>&1
  local rc=$?
  set -e
  kb=$(tail -1 "$T/time" | awk '{print $1}'); secs=$(tail -1 "$T/time" | awk '{print $2}')
  printf '| %s | %d | %s | %d |\n' "$label" $((kb / 1024)) "$secs" "$rc"
}

echo
echo "| command | peak RSS (MiB) | wall (s) | exit |"
echo "| --- | ---: | ---: | ---: |"
for mb in $run_sizes; do
  measure "kdet run, ${mb} MiB output, -n 2" \
    "$kdet" run "$T/in.txt" --cmd "$T/big.sh {output} $mb" -n 2 -q
  measure "kdet run, ${mb} MiB output, -n 2 --out" \
    "$kdet" run "$T/in.txt" --cmd "$T/big.sh {output} $mb" -n 2 -q --out "$T/out$mb"
  rm -rf "$T/out$mb"
done
for mb in $diff_sizes; do
  python3 "$gen" ptx "$mb" 1 "$T/a.ptx" "$T/b.ptx"
  measure "kdet diff, $(($(stat -c %s "$T/a.ptx") >> 20)) MiB PTX, kernels shuffled" \
    "$kdet" diff "$T/a.ptx" "$T/b.ptx"
  measure "kdet diff, same, --json" "$kdet" diff "$T/a.ptx" "$T/b.ptx" --json "$T/d.json"
  measure "kdet diff, same, --max-size 1M (summary)" "$kdet" diff "$T/a.ptx" "$T/b.ptx" --max-size 1M
done
