"""A Python NVRTC pipeline for the capture tests, the way bindings reach it.

Loads NVRTC with ctypes (dlopen + dlsym) and compiles one kernel that takes
its constant from a header, VALUE in 0..N-1, from a thread pool in this process
and from a multiprocessing pool of forked children (after the parent has
loaded NVRTC and compiled once). Usage: nvrtc_ctypes.py SONAME N ARCH.
Prints one line per compile; exit 0 when all succeeded.
"""
import ctypes
import multiprocessing
import sys
from concurrent.futures import ThreadPoolExecutor

SONAME, N, ARCH = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lib = ctypes.CDLL(SONAME)
SRC = b'#include "v.h"\nextern "C" __global__ void k(int* p) { p[0] = VALUE; }\n'


def compile_one(value):
    prog = ctypes.c_void_p()
    header = ctypes.c_char_p(b"#define VALUE %d\n" % value)
    name = ctypes.c_char_p(b"v.h")
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), SRC, b"k.cu", 1, ctypes.byref(header), ctypes.byref(name))
    if rc != 0:
        return f"create failed {rc}"
    opt = ctypes.c_char_p(("-arch=" + ARCH).encode())
    rc = lib.nvrtcCompileProgram(prog, 1, ctypes.byref(opt))
    size = ctypes.c_size_t()
    if rc == 0:
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        rc = lib.nvrtcGetPTX(prog, buf)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return f"value {value}: rc {rc}, {size.value} bytes"


if __name__ == "__main__":
    results = [compile_one(0)]
    with ThreadPoolExecutor(4) as pool:
        results += list(pool.map(compile_one, range(N)))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results += pool.map(compile_one, range(N))
    print("\n".join(results))
    sys.exit(0 if all(": rc 0," in r for r in results) else 1)
