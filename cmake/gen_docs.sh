#!/usr/bin/env bash
# gen_docs.sh KDET OUTDIR VERSION [HELP2MAN]: writes OUTDIR/man1/kdet.1 and kdet-COMMAND.1 for
# every command (help2man over `kdet [COMMAND] --help`; skipped when HELP2MAN is empty) and
# OUTDIR/completion/kdet (`kdet completion bash`), then OUTDIR/stamp. Run by the build.
set -euo pipefail
kdet=$1 out=$2 version=$3 help2man=${4:-}
rm -rf "$out/man1" "$out/completion" "$out/wrappers"
mkdir -p "$out/man1" "$out/completion" "$out/wrappers"
"$kdet" completion bash >"$out/completion/kdet"
if [[ -n $help2man ]]; then
  "$help2man" -N --no-discard-stderr --version-string="$version" \
    -n "find, measure, explain and contain nondeterminism in GPU kernel compilers" \
    -o "$out/man1/kdet.1" "$kdet"
  # help2man runs a program with --help: one small wrapper per command (`kdet cache gc`).
  while IFS=$'\t' read -r path description; do
    name=kdet-${path// /-}
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$kdet" "$path" >"$out/wrappers/$name"
    chmod +x "$out/wrappers/$name"
    "$help2man" -N --no-discard-stderr --version-string="$version" -n "$description" \
      -o "$out/man1/$name.1" "$out/wrappers/$name"
  done < <("$kdet" completion commands)
fi
rm -rf "$out/wrappers"
touch "$out/stamp"
