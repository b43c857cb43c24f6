"""Writes the modules numba 0.56 (Debian python3-numba) hands libNVVM for saxpy.

  CUDA_HOME=PRIVATE_HOME /usr/bin/python3 gen_numba.py OUTDIR

numba needs a libNVVM to load even to build IR: PRIVATE_HOME is a folder of links
as tests/e2e/capture_numba.sh makes (nvvm/lib64/libnvvm.so, nvvm/libdevice, lib64).
Writes OUTDIR/NAME.0.ll (the kernel wrapper) and OUTDIR/NAME.1.ll (the inner
function) for saxpy and saxpy_dbg (debug=True, opt=0); merge_numba.py joins them.
"""
import sys

from numba import cuda, float32
from numba.cuda import compiler


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


SIG = (float32, float32[:], float32[:], float32[:])
for name, dbg in (("saxpy", False), ("saxpy_dbg", True)):
    opts = {"debug": dbg, "lineinfo": False, "fastmath": False, "opt": 0 if dbg else 3}
    cres = compiler.compile_cuda(saxpy, None, SIG, debug=dbg, lineinfo=False, fastmath=False,
                                 nvvm_options=opts)
    lib, _ = cres.target_context.prepare_cuda_kernel(
        cres.library, cres.fndesc, dbg, opts, cres.type_annotation.filename,
        int(cres.type_annotation.linenum))
    for k, mod in enumerate(lib.modules):
        with open(f"{sys.argv[1]}/{name}.{k}.ll", "w") as f:
            f.write(str(mod))
