#!/bin/bash
# fake_nvdisasm.sh: stands in for nvdisasm (`nvdisasm FILE`) where the real one is absent.
# FAKE_NVDISASM_MODE picks what it does (default listing):
#   listing  print $FAKE_NVDISASM_DIR/<sha256 of FILE>.txt, else $FAKE_NVDISASM_DIR/default.txt,
#            else tests/data/sass/saxpy_sm90.nvdisasm.txt; exit 0
#   hang     never exits
#   garbage  print lines that are no listing; exit 0
#   crash    SIGSEGV
#   fail     "nvdisasm fatal" on stderr; exit 1
set -u
file=${!#}
case ${FAKE_NVDISASM_MODE:-listing} in
listing)
  [[ -r $file ]] || { echo "nvdisasm fatal   : Could not open input file '$file'" >&2; exit 1; }
  dir=${FAKE_NVDISASM_DIR:-}
  sum=$(sha256sum <"$file" | cut -c1-64)
  if [[ -n $dir && -r $dir/$sum.txt ]]; then
    cat "$dir/$sum.txt"
  elif [[ -n $dir && -r $dir/default.txt ]]; then
    cat "$dir/default.txt"
  else
    cat "$(dirname "$0")/../data/sass/saxpy_sm90.nvdisasm.txt"
  fi
  ;;
hang) while :; do sleep 1; done ;;
garbage) printf 'Segmentation of ideas\n/*zzzz*/ nonsense ;\n\tFunction : \n%s\n' "$(seq 1 50)" ;;
crash) kill -SEGV $$ ;;
fail)
  echo "nvdisasm fatal   : (requested) failure" >&2
  exit 1
  ;;
*)
  echo "fake_nvdisasm: unknown FAKE_NVDISASM_MODE '$FAKE_NVDISASM_MODE'" >&2
  exit 2
  ;;
esac
