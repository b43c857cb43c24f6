#!/usr/bin/env python3
"""make_ptx.py: regenerates the PTX test data of the diff tests from the bundled
LLVM-7-style NVVM IR with the real libNVVM (ctypes), -arch=compute_90a -opt=3.

Usage: python3 tests/data/diff/make_ptx.py [--libnvvm PATH]
Writes tests/data/diff/<name>.ptx for each examples/nvvm/llvm7/*.ll and tests/data/diff/*.ll.
"""
import ctypes
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
OPTS = [b"-arch=compute_90a", b"-opt=3"]


def compile_ll(lib, text, name):
    prog = ctypes.c_void_p()
    assert lib.nvvmCreateProgram(ctypes.byref(prog)) == 0
    data = text.encode()
    rc = lib.nvvmAddModuleToProgram(prog, data, ctypes.c_size_t(len(data)), name.encode())
    if rc == 0:
        arr = (ctypes.c_char_p * len(OPTS))(*OPTS)
        rc = lib.nvvmCompileProgram(prog, len(OPTS), arr)
    size = ctypes.c_size_t()
    if rc != 0:
        lib.nvvmGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvvmGetProgramLog(prog, buf)
        sys.exit("%s: libNVVM rc=%d: %s" % (name, rc, buf.value.decode(errors="replace")))
    lib.nvvmGetCompiledResultSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvvmGetCompiledResult(prog, buf)
    lib.nvvmDestroyProgram(ctypes.byref(prog))
    return buf.value.decode()


def main():
    path = "/usr/local/cuda/lib64/libnvvm.so"
    if len(sys.argv) == 3 and sys.argv[1] == "--libnvvm":
        path = sys.argv[2]
    lib = ctypes.CDLL(path)
    inputs = sorted(glob.glob(os.path.join(ROOT, "examples", "nvvm", "llvm7", "*.ll")))
    inputs += sorted(glob.glob(os.path.join(HERE, "*.ll")))
    for ll in inputs:
        name = os.path.splitext(os.path.basename(ll))[0]
        with open(ll) as f:
            ptx = compile_ll(lib, f.read(), name)
        out = os.path.join(HERE, name + ".ptx")
        with open(out, "w") as f:
            f.write(ptx)
        print("wrote", os.path.relpath(out, ROOT), len(ptx.splitlines()), "lines")


if __name__ == "__main__":
    main()
