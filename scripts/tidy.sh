#!/usr/bin/env bash
# Runs clang-tidy (checks and errors in the root .clang-tidy: bugprone-* and performance-*) over
# every .cpp under src/, in parallel, with the compile commands of a configured build folder.
# Usage: scripts/tidy.sh [BUILD_DIR] [FILE_REGEX]   (default build/, every file; KDET_TIDY_JOBS=N)
# The build folder needs only to be configured (cmake writes compile_commands.json and the
# generated headers); nothing is compiled.
# Exit: 0 no finding, 1 any finding or a file clang-tidy could not read, 77 clang-tidy is absent,
# 2 no compile_commands.json in BUILD_DIR.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
filter=${2:-}

tidy=""
for t in clang-tidy-14 clang-tidy; do
  if command -v "$t" >/dev/null 2>&1; then tidy=$t; break; fi
done
if [[ -z $tidy ]]; then
  echo "tidy: clang-tidy is not installed (scripts/setup.sh installs clang-tidy)" >&2
  exit 77
fi
if [[ ! -f $build/compile_commands.json ]]; then
  echo "tidy: no $build/compile_commands.json (configure first: scripts/build.sh)" >&2
  exit 2
fi

mapfile -t files < <(cd "$root" && git ls-files 'src/*.cpp' | grep -E -- "${filter:-.}")
if ((${#files[@]} == 0)); then
  echo "tidy: no src/ .cpp file matches '$filter'" >&2
  exit 2
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Each file's output goes to its own log so that parallel runs do not interleave. The compile
# commands are GCC's: -Wno-error and -Wno-unknown-warning-option keep GCC's warning flags (the
# plain phase's job) from failing clang-tidy's parse.
printf '%s\n' "${files[@]}" | (cd "$root" && xargs -P "${KDET_TIDY_JOBS:-$(nproc)}" -I{} \
  sh -c '"$1" -p "$2" --quiet --extra-arg=-Wno-error --extra-arg=-Wno-unknown-warning-option \
           "$4" >"$3/$(printf %s "$4" | tr / _).log" 2>&1 || printf "%s\n" "$4" >>"$3/failed"' \
  _ "$tidy" "$build" "$logs" {})

if [[ ! -s $logs/failed ]]; then
  echo "tidy: ${#files[@]} file(s), no finding ($tidy)"
  exit 0
fi
sort -o "$logs/failed" "$logs/failed"
while IFS= read -r f; do
  echo "==== $f"
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' \
    "$logs/$(printf %s "$f" | tr / _).log"
done <"$logs/failed"
# The same finding in a header is reported once per file that includes it: count each place once.
echo "tidy: findings per check (each place once):"
cat "$logs"/*.log | grep -oE '^[^ ]+:[0-9]+:[0-9]+: (error|warning): .*\[[a-z0-9.-]+(,-warnings-as-errors)?\]$' |
  sed -E 's/^([^ ]+:[0-9]+:[0-9]+): .*\[([a-z0-9.-]+).*\]$/\1 \2/' | sort -u | awk '{print $2}' |
  sort | uniq -c | sort -rn | sed 's/^/  /'
echo "tidy: $(wc -l <"$logs/failed") of ${#files[@]} file(s) have findings ($tidy; see .clang-tidy)" >&2
exit 1
