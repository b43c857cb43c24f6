#!/usr/bin/env bash
# Installs every Debian package kdet needs to build, test and run its demo.
# Idempotent: installs only what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  # build
  g++ cmake ninja-build pkg-config clang-format clang-tidy ccache
  # libraries (all from Debian; nothing is vendored)
  libcli11-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev libxxhash-dev libelf-dev
  libboost-dev libtomlplusplus-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 python3-jsonschema sqlite3
  # man pages written from kdet's --help at build time
  help2man
  # sanitizer runtimes for the asan and tsan phases of scripts/test.sh
  libasan8 libubsan1 libtsan2
  # factors and tools used by tests: libfaketime, libFuzzer (clang-14), headless browser, one-node Slurm
  faketime clang-14 libclang-rt-14-dev chromium slurm-wlm munge
  # a real Python pipeline for kdet capture: numba loads libNVVM through ctypes
  python3-numba
  # kdet reduce's engine for C, C++ and CUDA C++ inputs
  cvise
)

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
