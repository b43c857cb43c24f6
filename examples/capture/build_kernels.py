"""A small build pipeline for trying `kdet capture` (README, "The workflow").

Compiles the bundled NVVM IR kernels (examples/nvvm/llvm7/*.ll) to PTX with libNVVM
through ctypes, as Python DSLs do, writes each to out/NAME.ptx, then assembles each
with ptxas for sm_80 (out/NAME.cubin), as Triton does. No GPU is needed.

    python3 examples/capture/build_kernels.py [--cuda-home /usr/local/cuda] [--out out]

Exit 0 when every kernel built; 77 when libNVVM or ptxas is not there.
"""
import argparse
import ctypes
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def find_libnvvm(cuda):
    for pattern in ("nvvm/lib64/libnvvm.so*", "lib64/libnvvm.so*", "lib/libnvvm.so*"):
        found = sorted(glob.glob(os.path.join(cuda, pattern)))
        if found:
            return found[0]
    return None


def compile_nvvm(lib, source, options):
    prog = ctypes.c_void_p()
    check = lambda rc, what: rc == 0 or sys.exit(f"build_kernels: {what} failed ({rc})")
    check(lib.nvvmCreateProgram(ctypes.byref(prog)), "nvvmCreateProgram")
    check(lib.nvvmAddModuleToProgram(prog, source, ctypes.c_size_t(len(source)), b"module"),
          "nvvmAddModuleToProgram")
    opts = (ctypes.c_char_p * len(options))(*options)
    rc = lib.nvvmCompileProgram(prog, len(options), opts)
    if rc != 0:
        size = ctypes.c_size_t()
        lib.nvvmGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvvmGetProgramLog(prog, log)
        sys.exit(f"build_kernels: nvvmCompileProgram failed ({rc}): {log.value.decode()}")
    size = ctypes.c_size_t()
    lib.nvvmGetCompiledResultSize(prog, ctypes.byref(size))
    out = ctypes.create_string_buffer(size.value)
    lib.nvvmGetCompiledResult(prog, out)
    lib.nvvmDestroyProgram(ctypes.byref(prog))
    return out.value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-home", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--out", default="out")
    a = ap.parse_args()
    nvvm = find_libnvvm(a.cuda_home)
    ptxas = os.path.join(a.cuda_home, "bin", "ptxas")
    if not nvvm or not os.access(ptxas, os.X_OK):
        print(f"build_kernels: no libNVVM or ptxas under {a.cuda_home}", file=sys.stderr)
        return 77
    lib = ctypes.CDLL(nvvm)
    os.makedirs(a.out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(HERE, "..", "nvvm", "llvm7", "*.ll"))):
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, "rb") as f:
            source = f.read()
        ptx = compile_nvvm(lib, source, [b"-arch=compute_80", b"-opt=3"])
        ptx_path = os.path.join(a.out, name + ".ptx")
        with open(ptx_path, "wb") as f:
            f.write(ptx)
        subprocess.run([ptxas, "-arch=sm_80", ptx_path, "-o",
                        os.path.join(a.out, name + ".cubin")], check=True)
        print(f"built {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
