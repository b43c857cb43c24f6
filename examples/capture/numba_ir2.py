"""Stamps numba 0.56's NVVM IR as 2.0, which libNVVM 13.0 accepts (docs/CAPTURE.md, "numba").

numba 0.56 writes `!nvvmir.version = !{i32 1, i32 6, ...}`; libNVVM 13.0 refuses it with
NVVM_ERROR_IR_VERSION_MISMATCH. Import this module before compiling (`import numba_ir2`, or
PYTHONPATH=examples/capture python3 -c 'import numba_ir2; ...'). Checked with Debian's numba
0.56.4 and CUDA 13.0's libNVVM on kernels without debug metadata.
"""
from llvmlite import ir
import numba.cuda.cudadrv.nvvm as nvvm
def add_ir_version(mod):
    i32 = ir.IntType(32)
    mod.add_named_metadata("nvvmir.version", mod.add_metadata([i32(2), i32(0), i32(3), i32(1)]))
nvvm.add_ir_version = add_ir_version
