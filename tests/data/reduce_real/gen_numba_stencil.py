"""Writes the modules numba 0.56 (Debian python3-numba) hands libNVVM for a large kernel.

  CUDA_HOME=PRIVATE_HOME /usr/bin/python3 gen_numba_stencil.py OUTDIR
  python3 merge_numba.py numba_stencil.ll OUTDIR/stencil.1.ll OUTDIR/stencil.0.ll --nvvm-version 2.0
  gzip -9 -n numba_stencil.ll

PRIVATE_HOME as for gen_numba.py. These are the modules numba hands nvvmCompileProgram: `kdet
capture` of `cuda.compile_ptx(stencil, SIG, cc=(8, 0))` records the same two files byte for byte
(its bundle's inputs 00-module.ll and 01-module.ll, options -opt=3 -arch=compute_80, then
libdevice added lazily, which the merged file leaves out: its __nv_ calls stay declarations);
libNVVM 13.0 refuses them as numba writes them (IR version 1.6), so merge_numba.py writes 2.0. The kernel has 15 arguments (8 arrays), so numba's wrapper
kernel takes 67 parameters; a loop, a branch, libdevice calls and an atomic give the inner
function a body. Merged, about 78 KB of NVVM IR: numba_stencil.ll.gz, reduced by
tests/e2e/reduce_numba_large.sh.
"""
import sys

from numba import cuda, float32, int32
from numba.cuda import compiler


def stencil(a, b, alpha, beta, x, y, z, w, out, mask, hist, coef, n_iter, lo, hi):
    i = cuda.grid(1)
    if i >= out.size:
        return
    acc = float32(0)
    for k in range(n_iter):
        j = (i + k) % x.size
        t = alpha * x[j] + beta * y[j]
        if mask[j] > 0:
            t = t * z[j] - w[j]
        else:
            t = abs(t) + coef[k % coef.size]
        acc += t
    s = a * acc + b
    if s > hi:
        s = hi
    out[i] = s
    bucket = int32(s) % hist.size
    cuda.atomic.add(hist, bucket, 1)


SIG = (float32, float32, float32, float32, float32[:], float32[:], float32[:], float32[:],
       float32[:], int32[:], int32[:], float32[:], int32, float32, float32)
opts = {"debug": False, "lineinfo": False, "fastmath": False, "opt": 3}
cres = compiler.compile_cuda(stencil, None, SIG, debug=False, lineinfo=False, fastmath=False,
                             nvvm_options=opts)
lib, _ = cres.target_context.prepare_cuda_kernel(
    cres.library, cres.fndesc, False, opts, cres.type_annotation.filename,
    int(cres.type_annotation.linenum))
for k, mod in enumerate(lib.modules):
    with open(f"{sys.argv[1]}/stencil.{k}.ll", "w") as f:
        f.write(str(mod))
