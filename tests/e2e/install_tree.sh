#!/usr/bin/env bash
# tier: slow
# install_tree.sh: `cmake --install --strip` (README's install) into a fresh prefix gives every
# file of the install layout (cmake/install.cmake), the JSON Schemas among them, with binaries of
# a reasonable size (stripped: no debug sections; kdet under 16 MiB, the tree under 32 MiB; an
# unstripped RelWithDebInfo kdet is about 140 MB); the installed kdet runs and finds
# libkdet_chaos.so in lib/kdet (a --heap chaos run on the fake libNVVM); a man page renders; the
# bash completion completes commands, options and choices; kdet-cache.pc resolves and a C program
# compiles and links against the library; LICENSE and CHANGELOG.md are in share/doc/kdet.
# Env: KDET, KDET_BINARY_DIR, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
need_fakes libfakenvvm.so
need_cmd cmake "to install"
P=$T/prefix
cmake --install "$KDET_BINARY_DIR" --strip --prefix "$P" >"$T/install.log" 2>&1 || {
  cat "$T/install.log" >&2
  fail "cmake --install --strip failed"
}
for f in bin/kdet lib/kdet/libkdet_chaos.so lib/kdet/libkdet_capture.so lib/kdet/kdet-exec-shim \
  lib/libkdet_cache.so include/kdet_cache.h lib/pkgconfig/kdet-cache.pc \
  lib/python3/dist-packages/kdet_cache/__init__.py lib/python3/dist-packages/kdet_stage/llvmlite_ptx.py \
  share/bash-completion/completions/kdet; do
  [[ -e $P/$f ]] || fail "$f not installed"
done
# The licence goes with the binaries (Apache 2.0, section 4(a): recipients get a copy), and the
# changelog says what changed, where a packager looks for them (share/doc/kdet).
for f in LICENSE CHANGELOG.md; do
  cmp -s "$KDET_SOURCE_DIR/$f" "$P/share/doc/kdet/$f" || fail "$f not installed in share/doc/kdet (or differs)"
done
# Every schema of docs/schemas is installed, whole, and parses.
n_schemas=0
for s in "$KDET_SOURCE_DIR"/docs/schemas/*.schema.json; do
  i=$P/share/kdet/schemas/$(basename "$s")
  cmp -s "$s" "$i" || fail "$(basename "$s") not installed in share/kdet/schemas (or differs)"
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$i" || fail "$i does not parse"
  n_schemas=$((n_schemas + 1))
done
((n_schemas >= 10)) || fail "only $n_schemas schemas in docs/schemas"
# Sizes: stripped binaries carry no debug sections, and the tree is a few MB.
need_cmd readelf "binutils, to read the installed binaries' sections"
for f in bin/kdet lib/libkdet_cache.so lib/kdet/libkdet_capture.so lib/kdet/kdet-exec-shim; do
  if readelf -S --wide "$P/$f" | grep -qE '\.debug_(info|line)'; then
    fail "$f keeps debug sections after --strip"
  fi
done
kdet_size=$(stat -c %s "$P/bin/kdet")
tree_size=$(du -sb "$P" | cut -f1)
echo "install_tree: installed kdet $kdet_size bytes, the tree $tree_size bytes"
((kdet_size < 16 * 1024 * 1024)) || fail "installed kdet is $kdet_size bytes (limit 16 MiB)"
((tree_size < 32 * 1024 * 1024)) || fail "the installed tree is $tree_size bytes (limit 32 MiB)"
expect_exit 0 "$P/bin/kdet" --version
expect_output '^kdet [0-9]+\.[0-9]+'
# No installed text file (pc, completion, man page) points back into the build tree.
if grep -rIlF "$KDET_BINARY_DIR" "$P" >"$T/refs"; then fail "build paths in: $(cat "$T/refs")"; fi

# The installed kdet, moved away from the build tree, finds its chaos library.
IN=$(dirname "$0")/../../examples/nvvm/llvm7/saxpy.ll
expect_exit 0 "$P/bin/kdet" run "$IN" --lib "$FAKES/libfakenvvm.so" -n 2 --heap chaos --quiet
# The installed Python module finds the installed libkdet_cache.so with no variable set.
(cd "$T" && env -u KDET_CACHE_LIB PYTHONPATH="$P/lib/python3/dist-packages" python3 -c '
import os, sys, kdet_cache
c = kdet_cache.KdetCache(sys.argv[1])
c.close()
assert os.path.realpath(kdet_cache.find_library()).startswith(os.path.realpath(sys.argv[2])), kdet_cache.find_library()
' "$T/pycache" "$P") || fail "the installed kdet_cache module did not find the installed library"
# Into a prefix python3 searches (a venv's), the module goes to its site-packages: importable
# with no variable at all.
if python3 -m venv --without-pip "$T/venv" >/dev/null 2>&1; then
  PATH="$T/venv/bin:$PATH" cmake --install "$KDET_BINARY_DIR" --prefix "$T/venv" >"$T/install.log" 2>&1 ||
    fail "cmake --install into a venv failed"
  (cd "$T" && env -u KDET_CACHE_LIB -u PYTHONPATH "$T/venv/bin/python3" -c '
import os, sys, kdet_cache
assert os.path.realpath(kdet_cache.find_library()).startswith(os.path.realpath(sys.argv[1])), kdet_cache.find_library()
' "$T/venv") || fail "kdet_cache installed into a venv is not importable there with no variable"
else
  echo "install_tree: python3 -m venv unavailable: the venv install is not checked"
fi
expect_exit 2 "$P/bin/kdet" --bogus
expect_output 'does not take --bogus'

# Completion: commands, options of run, choices of --backend, subcommands of cache.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kdet
           echo "${COMPREPLY[*]}"' _ "$P/share/bash-completion/completions/kdet" "$@"
}
expect_eq "kdet ru<TAB>" "$(complete_words kdet ru)" "run"
expect_eq "kdet run --ru<TAB>" "$(complete_words kdet run x.ll --ru)" "--runs"
expect_eq "kdet run --backend nv<TAB>" "$(complete_words kdet run --backend nv)" \
  "nvvm nvrtc nvjitlink"
expect_eq "kdet cache g<TAB>" "$(complete_words kdet cache g)" "gc"
# Every option `kdet run --help` lists completes.
opts=" $(complete_words kdet run -) "
for o in $("$P/bin/kdet" run --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
  [[ $opts == *" $o "* ]] || fail "kdet run $o is missing from the completion"
done

# pkg-config and a C program linked against the installed library.
need_cmd pkg-config "to read kdet-cache.pc"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
inc=$(pkg-config --cflags-only-I kdet-cache | sed 's/^-I//; s/ *$//')
libdir=$(pkg-config --libs-only-L kdet-cache | sed 's/^-L//; s/ *$//')
expect_eq "pkg-config --cflags" "$(realpath "$inc")" "$(realpath "$P/include")"
expect_eq "pkg-config --libs-only-L" "$(realpath "$libdir")" "$(realpath "$P/lib")"
expect_eq "pkg-config --libs-only-l" "$(pkg-config --libs-only-l kdet-cache | sed 's/ *$//')" "-lkdet_cache"
cat >"$T/use.c" <<'C'
#include <kdet_cache.h>
#include <stdio.h>
int main(void) {
  kdet_cache* c = kdet_cache_open(CACHE_DIR);
  if (!c) { fprintf(stderr, "%s\n", kdet_cache_last_error()); return 1; }
  kdet_cache_close(c);
  puts("opened");
  return 0;
}
C
# shellcheck disable=SC2046
cc -DCACHE_DIR="\"$T/cache\"" "$T/use.c" -o "$T/use" $(pkg-config --cflags --libs kdet-cache) ||
  fail "a C program does not build against the installed kdet-cache"
expect_eq "C program" "$(LD_LIBRARY_PATH=$P/lib "$T/use")" "opened"

# Man pages: one per command, and they render.
[[ -f $P/share/man/man1/kdet.1 ]] || skip "help2man absent: man pages not built (all else passed)"
while IFS=$'\t' read -r path _; do
  [[ -f $P/share/man/man1/kdet-${path// /-}.1 ]] || fail "no man page for kdet $path"
done < <("$P/bin/kdet" completion commands)
need_cmd man "to render a man page"
MANWIDTH=80 man -l "$P/share/man/man1/kdet-run.1" 2>/dev/null >"$T/man.txt" || fail "man -l kdet-run.1 failed"
grep -q -- '--runs' "$T/man.txt" || fail "kdet-run.1 does not document --runs"
grep -q 'kdet run' "$T/man.txt" || fail "kdet-run.1 does not name kdet run"
echo "install_tree: PASS"
