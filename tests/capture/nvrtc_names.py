"""An NVRTC pipeline with name expressions, the way CuPy's RawModule asks for them.

Loads NVRTC with ctypes, compiles a templated kernel with two name expressions
(&scale<int>, &scale<float>) and a header, and fetches the lowered names and
the PTX. Usage: nvrtc_names.py SONAME ARCH. Exit 0 when it succeeded.
"""
import ctypes
import sys

SONAME, ARCH = sys.argv[1], sys.argv[2]
lib = ctypes.CDLL(SONAME)
SRC = b'#include "f.h"\ntemplate <typename T> __global__ void scale(T* p) { p[threadIdx.x] *= T(FACTOR); }\n'
prog = ctypes.c_void_p()
header = ctypes.c_char_p(b"#define FACTOR 3\n")
name = ctypes.c_char_p(b"f.h")
assert lib.nvrtcCreateProgram(ctypes.byref(prog), SRC, b"scale.cu", 1, ctypes.byref(header), ctypes.byref(name)) == 0
for expr in (b"&scale<int>", b"&scale<float>"):
    assert lib.nvrtcAddNameExpression(prog, expr) == 0
opt = ctypes.c_char_p(("-arch=" + ARCH).encode())
rc = lib.nvrtcCompileProgram(prog, 1, ctypes.byref(opt))
if rc != 0:
    sys.exit(f"compile failed {rc}")
lowered = ctypes.c_char_p()
assert lib.nvrtcGetLoweredName(prog, b"&scale<float>", ctypes.byref(lowered)) == 0
size = ctypes.c_size_t()
lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
buf = ctypes.create_string_buffer(size.value)
assert lib.nvrtcGetPTX(prog, buf) == 0
# The lowered name lives in the program: read it before the program is destroyed.
lowered_name = lowered.value.decode()
assert lowered_name in buf.value.decode()
lib.nvrtcDestroyProgram(ctypes.byref(prog))
print(lowered_name)
