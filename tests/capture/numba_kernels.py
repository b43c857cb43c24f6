"""A numba pipeline for the capture tests: three kernels compiled to PTX.

numba loads libNVVM with ctypes (dlopen + dlsym) and adds libdevice lazily.
Each kernel is attempted even if one fails; prints one line per kernel
("ok NAME SIZE" or "failed NAME: the error on one line") and exits 0 when
all compiled, 1 otherwise. Needs no GPU (compile_ptx only).
"""
import sys

from numba import cuda, float32, int32


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def softplus(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = max(x[i], float32(0)) + float32(1e-3) * x[i] * x[i]


def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


KERNELS = [
    (saxpy, (float32, float32[:], float32[:], float32[:])),
    (softplus, (float32[:], float32[:])),
    (histogram, (int32[:], int32[:])),
]

failed = 0
for fn, sig in KERNELS:
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(8, 0))
        print(f"ok {fn.__name__} {len(ptx)}")
    except Exception as e:  # the compiler's failure is the test's data
        failed += 1
        print(f"failed {fn.__name__}: {' '.join(str(e).split())}")
sys.exit(1 if failed else 0)
