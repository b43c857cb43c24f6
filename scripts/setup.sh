#!/usr/bin/env bash
# Installs the Debian packages kdet needs: to build and run it (no argument), and with --test also
# what its tests and CI phases need (scripts/test.sh passes --test).
# Idempotent: installs only what is missing. Needs root (or sudo).
#   scripts/setup.sh [--test]
set -euo pipefail

test_deps=0
case ${1:-} in
  "") ;;
  --test) test_deps=1 ;;
  *) echo "setup.sh: unknown argument '$1'; valid: --test (also what the tests need)" >&2; exit 2 ;;
esac

packages=(
  # build
  g++ cmake ninja-build pkg-config
  # libraries (all from Debian; nothing is vendored)
  libcli11-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev libxxhash-dev libelf-dev
  libboost-dev libtomlplusplus-dev libzstd-dev libssl-dev
  # man pages written from kdet's --help at build time
  help2man
  # run: libfaketime for the time factor (--time fixed|vary); python3 for the Python module
  faketime python3
)
test_packages=(
  # checkers of the plain and tidy phases; every CI build goes through ccache
  clang-format clang-tidy ccache
  # unit tests and benchmarks; JSON schema checks; reading scan databases in tests
  libgtest-dev libgmock-dev libbenchmark-dev python3-jsonschema python3-venv sqlite3 man-db
  # sanitizer runtimes for the asan and tsan phases of scripts/test.sh
  libasan8 libubsan1 libtsan2
  # libFuzzer (clang-14; llvm-14 brings llvm-reduce-14 for kdet reduce --llvm-reduce), headless
  # browser for the HTML reports, one-node Slurm
  clang-14 libclang-rt-14-dev chromium slurm-wlm munge
  # a real Python pipeline for kdet capture: numba loads libNVVM through ctypes
  python3-numba
  # kdet reduce's engine for C, C++ and CUDA C++ inputs (optional for users: reduce names it)
  cvise
)
((test_deps)) && packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) == 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [[ ! -e /usr/local/cuda/include/nvvm.h && -z ${CUDA_HOME:-} ]]; then
  echo "setup: warning: no CUDA toolkit at /usr/local/cuda (set CUDA_HOME); kdet needs its headers to build" >&2
fi
