#!/usr/bin/env bash
# tier: quick
# A Python build on llvmlite's in-process LLVM NVPTX back end (tests/capture/llvmlite_build.py,
# Debian's python3-llvmlite): its LLVM is named as a compiler kdet cannot see into; with its
# files kept (--artifacts) a PTX that varies while the IR is the same is the ll -> ptx stage
# inside the process, and IR that varies is the frontend's; without them the PTX a command
# takes is made inside the process, never the pipeline's own input.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] && $PY -c 'import llvmlite.binding' 2>/dev/null || skip "python3-llvmlite not installed for /usr/bin/python3"
SCRIPT=$(realpath "$(dirname "$0")/../capture/llvmlite_build.py")
AS=$(realpath "$(dirname "$0")/../capture/edsl-as")
cd "$T"
pipe() { # pipe VARY [--as]
  printf '#!/bin/sh\nunset PYTHONHASHSEED\nmkdir -p lout\nLLVMLITE_VARY=%s exec %s %s lout %s\n' \
    "$1" "$PY" "$SCRIPT" "${2:+--as $AS}" >"$T/pipe.sh"
  chmod +x "$T/pipe.sh"
}

# The back end varies (function order after the IR was written), files kept: the first
# varying stage is the ll -> ptx stage inside the process; the source and IR the same.
pipe backend as
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --artifacts 'lout/kernels.*' --out "$T/b1" --json "$T/b1.json" -- "$T/pipe.sh"
expect_output "first varies at the kept files' ptx stage \(ll -> ptx, inside the process\); ll the same in all 3 builds"
expect_output 'BLIND +libLLVM[-.0-9a-z]*\.so[.0-9]* has an NVPTX back end'
expect_eq stages "$(json_eval "$T/b1.json" '[[s["seam"], s["label"]] for s in d["kernels"][0]["stages"]]')" "[['tapped', 'll'], ['tapped', 'ptx'], ['command', '']]"
expect_eq status "$(json_eval "$T/b1.json" 'd["kernels"][0]["status"]')" nondeterministic

# No taps: the assembler's PTX input was made inside the process by llvmlite's LLVM.
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --out "$T/b2" --json "$T/b2.json" -- "$T/pipe.sh"
expect_output 'first varies inside the process, upstream of stage 1 \(exec edsl-as\): its input was made by a compiler kdet did not see \(libLLVM'
expect_eq "no input-differs" "$(json_eval "$T/b2.json" 'd["summary"]["by_status"]["input-differs"]')" 0

# No taps and no command: nothing seen, blind (exit 3), never clean.
pipe backend
expect_exit 3 "$KDET" capture --builds 2 --out "$T/b3" -- "$T/pipe.sh"
expect_output 'BLIND +libLLVM'
expect_output 'blind, not clean'

# The frontend varies: the IR differs, the source does not: the frontend's own variance.
pipe frontend
expect_exit 1 "$KDET" capture --builds 3 --artifacts 'lout/kernels.*' --out "$T/b4" --json "$T/b4.json" -- "$T/pipe.sh"
expect_output "first varies at the kept files' ll stage \(src -> ll, inside the process; the frontend's own variance, not a compiler's\)"

# Nothing varies: same in every build, exit 0.
pipe none
expect_exit 0 "$KDET" capture --builds 2 --artifacts 'lout/kernels.*' --out "$T/b5" -- "$T/pipe.sh"
expect_output '0 of 1 kernel differ'
echo "$NAME: ok"
