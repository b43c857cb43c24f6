"""A build on llvmlite's in-process LLVM NVPTX back end (tests/e2e/capture_llvmlite.sh).

Usage: python3 llvmlite_build.py OUTDIR [--as PROGRAM]

A small DSL: eight kernels, each a store of its own constant, written as NVVM-style
LLVM IR (OUTDIR/kernels.ll, the frontend's output) and compiled to PTX with
llvmlite's NVPTX target machine inside this process (OUTDIR/kernels.ptx); the DSL's
source goes to OUTDIR/kernels.src. With --as, `PROGRAM kernels.ptx -o kernels.cubin`
assembles it, as Triton runs ptxas. LLVMLITE_VARY picks where a set's iteration order
(different in every process: str hashes are salted per process) leaks in, as a
table of the kernels' initials in that order:
  none      nothing varies
  backend   the module llvmlite compiles, after the IR was written: the PTX varies
            while the IR file is the same (the ll -> ptx stage)
  frontend  the IR the frontend writes (and so the PTX)
"""
import os
import subprocess
import sys

import llvmlite.binding as llvm

NAMES = ["k_alpha", "k_beta", "k_gamma", "k_delta", "k_epsilon", "k_zeta", "k_eta", "k_theta"]


def ir_text(order):
    table = "".join(n[2].upper() for n in order)
    funcs = [f'@order = addrspace(1) global [8 x i8] c"{table}"\n']
    notes = []
    for i, name in enumerate(NAMES):
        value = NAMES.index(name) + 1
        funcs.append(f"define void @{name}(float* %p) {{\n"
                     f"  store float {value}.0, float* %p\n  ret void\n}}\n")
        notes.append(f"!{i} = !{{void (float*)* @{name}, !\"kernel\", i32 1}}")
    refs = ", ".join(f"!{i}" for i in range(len(NAMES)))
    return ('target triple = "nvptx64-nvidia-cuda"\n\n' + "\n".join(funcs) +
            f"\n!nvvm.annotations = !{{{refs}}}\n" + "\n".join(notes) + "\n")


def main():
    out = sys.argv[1]
    assembler = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--as" else None
    vary = os.environ.get("LLVMLITE_VARY", "none")
    salted = list(set(NAMES))  # str hashes are salted per process (PYTHONHASHSEED)
    written = salted if vary == "frontend" else NAMES
    compiled = salted if vary in ("frontend", "backend") else NAMES
    with open(os.path.join(out, "kernels.src"), "w") as f:
        f.write("".join(f"kernel {n}(p) {{ *p = {NAMES.index(n) + 1} }}\n" for n in NAMES))
    with open(os.path.join(out, "kernels.ll"), "w") as f:
        f.write(ir_text(written))
    llvm.initialize()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu="sm_70", opt=2)
    module = llvm.parse_assembly(ir_text(compiled))
    module.verify()
    ptx = machine.emit_assembly(module)
    path = os.path.join(out, "kernels.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    if assembler:
        subprocess.run([assembler, path, "-o", os.path.join(out, "kernels.cubin")], check=True)


if __name__ == "__main__":
    main()
