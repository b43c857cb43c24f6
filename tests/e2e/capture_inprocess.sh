#!/usr/bin/env bash
# tier: quick
# A DSL whose compiler is built into its own library (tests/capture/embedded_dsl.c, as
# CuTe DSL's _cutlass_ir*.so and libtriton are): kdet names it as a compiler it cannot see
# into, never reads a capture that saw nothing as clean, and with its dumps kept as stage
# taps (--artifacts) names the first varying stage inside the process, telling the
# frontend's variance from the back end's. Without taps, PTX it made that a captured
# command takes is never called the pipeline's own input.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
DSL=$CL/libcapture_embedded_dsl.so
[[ -x $CL/capture_embedded_client && -f $DSL ]] || skip "capture clients not built (ninja kdet_capture_clients)"
[[ $(cat /proc/sys/kernel/randomize_va_space) != 0 ]] || skip "ASLR is off: the heap address the fixture leaks does not move"
AS=$(realpath "$(dirname "$0")/../capture/edsl-as")
cd "$T"
build() { # build VARY [--as]: one pipeline run of the DSL (3 kernels), dumps in dumps/
  printf '#!/bin/sh\nmkdir -p kout dumps\nEDSL_VARY=%s EDSL_DUMP_DIR=dumps exec %s %s kout %s k_add k_mul k_red\n' \
    "$1" "$CL/capture_embedded_client" "$DSL" "${2:+--as $AS}" >"$T/pipe.sh"
  chmod +x "$T/pipe.sh"
}

# 1. One capture, nothing interposable: no compile seen, the DSL named, exit 3 (blind).
build none
expect_exit 3 "$KDET" capture --out "$T/one" --json "$T/one.json" -- "$T/pipe.sh"
expect_output 'BLIND +libcapture_embedded_dsl.so has an NVPTX back end'
expect_output 'this capture is blind, not clean'
expect_eq seam "$(json_eval "$T/one.json" '[c["seam"] for c in d["compilers_inside"] if c["path"].endswith("libcapture_embedded_dsl.so")]')" "['blind']"

# 2. Builds, the back end varies, no taps, nothing captured: exit 3 and the DSL named.
build backend
expect_exit 3 "$KDET" capture --builds 3 --out "$T/b0" --json "$T/b0.json" -- "$T/pipe.sh"
expect_output 'no kernel was captured in 3 builds'
expect_output 'BLIND +libcapture_embedded_dsl.so has an NVPTX back end .*every build'
expect_output 'blind, not clean'

# 3. The same with an assembler command on its PTX: the PTX was made inside the process, by
#    the DSL: varies (never input-differs), upstream of the command, the DSL named.
build backend as
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --out b1 --json "$T/b1.json" -- "$T/pipe.sh" # a relative --out
expect_output '3 of 3 kernels differ across 3 builds: 3 nondeterministic'
expect_output 'first varies inside the process, upstream of stage 1 \(exec edsl-as\): its input was made by a compiler kdet did not see \(libcapture_embedded_dsl.so has an NVPTX back end\)'
expect_eq "no input-differs" "$(json_eval "$T/b1.json" 'd["summary"]["by_status"]["input-differs"]')" 0
expect_eq made_inside "$(json_eval "$T/b1.json" '{k["made_inside"] for k in d["kernels"]}')" "{'libcapture_embedded_dsl.so has an NVPTX back end'}"
# The next command compares two builds whose inputs really differ.
n=$(json_eval "$T/b1.json" 'd["kernels"][0]["next"]')
a=$(echo "$n" | awk '{print $3}'); b=$(echo "$n" | awk '{print $4}')
! cmp -s "$a"/* "$b"/* || fail "next: $n names two builds whose inputs are the same"

# 4. With the dumps kept as stage taps: the first varying stage is the DSL's ptx stage,
#    inside the process; the IR the same in all builds; the assembler's input joined.
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --artifacts 'dumps/*' --out "$T/b2" --json "$T/b2.json" -- "$T/pipe.sh"
expect_output 'NONDETERMINISTIC k_add'
expect_output 'first varies at the kept files'"'"' ptx stage \(mlir -> ptx, inside the process\); mlir the same in all 3 builds'
expect_eq stages "$(json_eval "$T/b2.json" '[[s["seam"], s["label"]] for s in [k for k in d["kernels"] if k["name"]=="k_add"][0]["stages"]]')" "[['tapped', 'mlir'], ['tapped', 'ptx'], ['command', '']]"
expect_eq first "$(json_eval "$T/b2.json" '{(k["first_nondeterministic_stage"]["index"], k["first_nondeterministic_stage"]["kind"]) for k in d["kernels"]}')" "{(2, 'tap')}"
[[ -f $T/b2/build-1/taps/artifacts/dumps/k_add.ptx ]] || fail "tapped file not kept"
expect_output 'next: kdet diff .*build-[0-9]/taps/artifacts/dumps/k_\w+.ptx .*build-[0-9]/taps/artifacts/dumps/k_\w+.ptx'
# Stale files do not count: dumps/ is emptied of matching files before each build.
touch dumps/stale.ptx
expect_exit 1 "$KDET" capture --builds 2 --exec edsl-as --artifacts 'dumps/*' --out "$T/b2s" --json "$T/b2s.json" -- "$T/pipe.sh"
[[ ! -e $T/b2s/build-1/taps/artifacts/dumps/stale.ptx ]] || fail "a stale file was kept"

# 4b. Only the IR kept (as XLA 0.11 dumps HLO but no PTX): no content joins it to the
#     assembler's input, so it is joined by kernel, the IR naming the PTX's entry; the kept IR
#     the same in all builds, the variance made after it. Each IR is also a kernel of its own.
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --artifacts 'dumps/*.mlir' --out "$T/b2m" --json "$T/b2m.json" -- "$T/pipe.sh"
expect_output '3 of 6 kernels differ across 3 builds: 3 nondeterministic'
expect_eq stages "$(json_eval "$T/b2m.json" '[[s["seam"], s["label"], s["by_name"]] for s in [k for k in d["kernels"] if k["name"]=="k_add" and k["status"]=="nondeterministic"][0]["stages"]]')" "[['tapped', 'mlir', True], ['command', '', False]]"
expect_output 'upstream of stage 2 \(exec edsl-as\): its input was made by a compiler kdet did not see \(libcapture_embedded_dsl.so has an NVPTX back end\); the kept mlir is the same in all 3 builds, so the variance is made after it'
# 4c. The IR varies and the PTX made from it does not (XLA's module HLO names kernels that
#     stay the same): the IR is said to vary, of its own kernel; no assembled kernel varies.
build ironly as
expect_exit 1 "$KDET" capture --builds 3 --exec edsl-as --artifacts 'dumps/*.mlir' --out "$T/b2i" --json "$T/b2i.json" -- "$T/pipe.sh"
expect_output '3 of 6 kernels differ across 3 builds: 3 nondeterministic'
expect_eq "varying stages" "$(json_eval "$T/b2i.json" 'sorted({(k["compiler"], k["first_nondeterministic_stage"]["kind"]) for k in d["kernels"] if k["status"] == "nondeterministic"})')" "[('tap --artifacts', 'tap')]"
expect_eq "assembled same" "$(json_eval "$T/b2i.json" 'sorted({k["status"] for k in d["kernels"] if k["stages"][-1]["seam"] == "command"})')" "['same']"
# 4d. Two kept files name every entry (XLA: a fusion's name in several modules' HLO): no join,
#     and the report says why no kept stage says where the variance began.
build backend as
sed -i 's|^mkdir -p kout dumps$|mkdir -p kout dumps; printf "k_add k_mul k_red\\n" >dumps/all.mlir|' "$T/pipe.sh"
expect_exit 1 "$KDET" capture --builds 2 --exec edsl-as --artifacts 'dumps/*.mlir' --out "$T/b2a" -- "$T/pipe.sh"
expect_output '2 kept files name all of its entries, so kdet cannot tell which of them it was made from'
build backend as

# 5. The frontend varies: told apart from a compiler's variance.
build frontend
expect_exit 1 "$KDET" capture --builds 3 --artifacts 'dumps/*' --out "$T/b3" --json "$T/b3.json" -- "$T/pipe.sh"
expect_output "first varies at the kept files' mlir stage \(mlir, inside the process; the frontend's own variance, not a compiler's\)"
expect_eq frontend "$(json_eval "$T/b3.json" '{k["stages"][k["first_nondeterministic_stage"]["index"]-1]["frontend"] for k in d["kernels"]}')" "{True}"

# 6. Nothing varies, with taps: same, exit 0; the DSL is still named.
build none as
expect_exit 0 "$KDET" capture --builds 2 --exec edsl-as --artifacts 'dumps/*' --out "$T/b4" -- "$T/pipe.sh"
expect_output '0 of 3 kernels differ across 2 builds'
expect_output 'BLIND +libcapture_embedded_dsl.so'

# kdet's factors varied between builds, on request: said in the report; an unknown one is exit 2.
expect_exit 0 "$KDET" capture --builds 2 --vary-builds aslr,umask,env --exec edsl-as --out "$T/v" --json "$T/v.json" -- "$T/pipe.sh"
expect_output 'varied +between builds: aslr \(on in odd builds, off'
expect_eq varied "$(json_eval "$T/v.json" 'len(d["varied"])')" 3
expect_exit 2 "$KDET" capture --builds 2 --vary-builds heapx --out "$T/v2" -- true
expect_output "--vary-builds: 'heapx' is not a factor"

# Bad globs: exit 2, naming the option.
expect_exit 2 "$KDET" capture --builds 2 --artifacts '/etc/*' --out "$T/bad" -- true
expect_output "--artifacts '/etc/\*': give a pattern relative"
expect_exit 2 "$KDET" capture --builds 2 --artifacts '../x/*' --out "$T/bad2" -- true
echo "$NAME: ok"
