#!/bin/bash
# The 16-core run of docs/PERFORMANCE.md ("Scan on one executor"), from the repository root on a
# machine with many cores and libNVVM: bench/census_ab.sh and bench/slots_in_flight.sh of two
# kdet binaries side by side. A and B: folders each holding a kdet binary with its
# libkdet_chaos.so (a kdet without it varies the heap otherwise, and census_ab refuses the pair);
# LIBS: a folder of the shared libraries they need, put on LD_LIBRARY_PATH (a machine that cannot
# install packages); FAKES: a folder holding libfakenvvm.so; OUT: where the reports go.
#   A=old B=new LIBS=lib FAKES=fakes OUT=/tmp/out scripts/device_census_ab.sh
set -u
A=$(cd "${A:?A names a folder holding kdet}" && pwd)
B=$(cd "${B:?B names a folder holding kdet}" && pwd)
FAKES=$(cd "${FAKES:?FAKES names a folder holding libfakenvvm.so}" && pwd)
OUT=${OUT:?OUT names the reports folder}
[[ -n ${LIBS:-} ]] && export LD_LIBRARY_PATH=$(cd "$LIBS" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for c in /usr/local/cuda/nvvm/lib64/libnvvm.so /usr/local/cuda/lib64/libnvvm.so; do
  [[ -z ${KDET_NVVM_LIB:-} && -e $c ]] && export KDET_NVVM_LIB=$c
done
mkdir -p "$OUT"
{
  date -u; echo "cores $(nproc)"; uname -r; grep -m1 'model name' /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
  echo "libNVVM ${KDET_NVVM_LIB:-none}"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
timeout 420 bash bench/census_ab.sh "$A/kdet" "$B/kdet" 7/25 3 "$(nproc)" 2>&1 | tee "$OUT/census.txt"
timeout 120 bash bench/slots_in_flight.sh "$A/kdet" "$B/kdet" "$FAKES" 16 3 2>&1 | tee "$OUT/slots.txt"
