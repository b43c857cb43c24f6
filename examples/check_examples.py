#!/usr/bin/env python3
"""check_examples.py: compile every bundled example with the REAL CUDA compilers.

Checks: examples/nvvm/llvm7/*.ll with libNVVM at -arch=compute_80 and compute_90a,
-opt=0..3; examples/nvvm/modern/*.ll with libNVVM at -arch=compute_100a;
examples/cuda/*.cu with NVRTC at -arch=sm_90 (PTX and cubin) and -arch=compute_90;
examples/ptx/*.ptx with ptxas -arch=sm_90a and nvJitLink -arch=sm_90.
Exits 0 when all pass, 1 on any failure, 77 when the CUDA toolkit is absent.
Usage: check_examples.py [--cuda-home DIR]  (default $CUDA_HOME or /usr/local/cuda)
"""
import ctypes
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cuda_home():
    if len(sys.argv) == 3 and sys.argv[1] == "--cuda-home":
        return sys.argv[2]
    return os.environ.get("CUDA_HOME", "/usr/local/cuda")


def find_lib(home, name):
    for sub in ("lib64", "lib", "nvvm/lib64"):
        path = os.path.join(home, sub, name)
        if os.path.exists(path):
            return path
    return None


def c_options(opts):
    arr = (ctypes.c_char_p * len(opts))()
    arr[:] = [o.encode() for o in opts]
    return arr


def nvvm_compile(lib, text, name, opts):
    """Return (ok, ptx_or_log)."""
    prog = ctypes.c_void_p()
    if lib.nvvmCreateProgram(ctypes.byref(prog)) != 0:
        return False, "nvvmCreateProgram failed"
    try:
        data = text.encode()
        rc = lib.nvvmAddModuleToProgram(prog, data, ctypes.c_size_t(len(data)), name.encode())
        if rc == 0:
            rc = lib.nvvmCompileProgram(prog, len(opts), c_options(opts))
        if rc != 0:
            size = ctypes.c_size_t()
            lib.nvvmGetProgramLogSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            lib.nvvmGetProgramLog(prog, buf)
            return False, "rc=%d %s" % (rc, buf.value.decode(errors="replace"))
        size = ctypes.c_size_t()
        lib.nvvmGetCompiledResultSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvvmGetCompiledResult(prog, buf)
        return True, buf.value.decode(errors="replace")
    finally:
        lib.nvvmDestroyProgram(ctypes.byref(prog))


def nvrtc_compile(lib, text, name, opts):
    """Return (ok, log, ptx_size, cubin_size)."""
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), text.encode(), name.encode(), 0, None, None)
    if rc != 0:
        return False, "nvrtcCreateProgram rc=%d" % rc, 0, 0
    try:
        rc = lib.nvrtcCompileProgram(prog, len(opts), c_options(opts))
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        if rc != 0:
            return False, "rc=%d %s" % (rc, log.value.decode(errors="replace")), 0, 0
        ptx = ctypes.c_size_t()
        lib.nvrtcGetPTXSize(prog, ctypes.byref(ptx))
        cubin = ctypes.c_size_t(0)
        if any(o.startswith("-arch=sm_") for o in opts):
            lib.nvrtcGetCUBINSize(prog, ctypes.byref(cubin))
        return True, "", ptx.value, cubin.value
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def nvjitlink_ptx(lib, text, name, opts):
    """Link one PTX input to a cubin; return (ok, log_or_size)."""
    handle = ctypes.c_void_p()
    rc = lib.nvJitLinkCreate(ctypes.byref(handle), len(opts), c_options(opts))
    if rc != 0:
        return False, "nvJitLinkCreate rc=%d" % rc
    try:
        data = text.encode() + b"\0"
        # NVJITLINK_INPUT_PTX == 2 in nvJitLink.h
        rc = lib.nvJitLinkAddData(handle, 2, data, ctypes.c_size_t(len(data)), name.encode())
        if rc == 0:
            rc = lib.nvJitLinkComplete(handle)
        if rc != 0:
            size = ctypes.c_size_t()
            lib.nvJitLinkGetErrorLogSize(handle, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value + 1)
            lib.nvJitLinkGetErrorLog(handle, buf)
            return False, "rc=%d %s" % (rc, buf.value.decode(errors="replace"))
        size = ctypes.c_size_t()
        lib.nvJitLinkGetLinkedCubinSize(handle, ctypes.byref(size))
        return size.value > 0, "cubin %d bytes" % size.value
    finally:
        lib.nvJitLinkDestroy(ctypes.byref(handle))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    home = cuda_home()
    paths = {n: find_lib(home, n) for n in ("libnvvm.so", "libnvrtc.so", "libnvJitLink.so")}
    ptxas = os.path.join(home, "bin", "ptxas")
    missing = [n for n, p in paths.items() if p is None]
    if not os.path.exists(ptxas):
        missing.append("ptxas")
    if missing:
        print("skipped: CUDA toolkit at %s lacks %s" % (home, ", ".join(missing)))
        return 77
    nvvm = ctypes.CDLL(paths["libnvvm.so"])
    nvrtc = ctypes.CDLL(paths["libnvrtc.so"])
    jit = ctypes.CDLL(paths["libnvJitLink.so"])
    failures = 0
    checks = 0

    def report(ok, what, detail=""):
        nonlocal failures, checks
        checks += 1
        if not ok:
            failures += 1
        print("%s %s%s" % ("ok  " if ok else "FAIL", what, (": " + detail.strip()) if not ok else ""))

    llvm7 = sorted(glob.glob(os.path.join(HERE, "nvvm", "llvm7", "*.ll")))
    modern = sorted(glob.glob(os.path.join(HERE, "nvvm", "modern", "*.ll")))
    cuda = sorted(glob.glob(os.path.join(HERE, "cuda", "*.cu")))
    ptx = sorted(glob.glob(os.path.join(HERE, "ptx", "*.ptx")))
    for kind, files in (("llvm7 .ll", llvm7), ("modern .ll", modern), (".cu", cuda), (".ptx", ptx)):
        report(len(files) > 0, "found %s files" % kind, "none found")

    for path in llvm7:
        rel = os.path.relpath(path, HERE)
        for arch in ("compute_80", "compute_90a"):
            for opt in range(4):
                opts = ["-arch=" + arch, "-opt=%d" % opt]
                ok, out = nvvm_compile(nvvm, read(path), rel, opts)
                ok = ok and ".entry" in out
                report(ok, "libNVVM %s %s" % (rel, " ".join(opts)), out)
    for path in modern:
        rel = os.path.relpath(path, HERE)
        for opt in range(4):
            opts = ["-arch=compute_100a", "-opt=%d" % opt]
            ok, out = nvvm_compile(nvvm, read(path), rel, opts)
            ok = ok and ".entry" in out
            report(ok, "libNVVM %s %s" % (rel, " ".join(opts)), out)
    for path in cuda:
        rel = os.path.relpath(path, HERE)
        ok, log, ptx_size, cubin_size = nvrtc_compile(nvrtc, read(path), rel, ["-arch=sm_90"])
        report(ok and ptx_size > 1 and cubin_size > 0, "NVRTC %s -arch=sm_90 (ptx %d, cubin %d)"
               % (rel, ptx_size, cubin_size), log or "empty PTX or cubin")
        ok, log, ptx_size, _ = nvrtc_compile(nvrtc, read(path), rel, ["-arch=compute_90"])
        report(ok and ptx_size > 1, "NVRTC %s -arch=compute_90 (ptx %d)" % (rel, ptx_size),
               log or "empty PTX")
    with tempfile.TemporaryDirectory() as tmp:
        for path in ptx:
            rel = os.path.relpath(path, HERE)
            out = os.path.join(tmp, "out.cubin")
            res = subprocess.run([ptxas, "-arch=sm_90a", path, "-o", out],
                                 capture_output=True, text=True)
            ok = res.returncode == 0 and os.path.getsize(out) > 0
            report(ok, "ptxas -arch=sm_90a %s" % rel, res.stderr)
            ok, detail = nvjitlink_ptx(jit, read(path), rel, ["-arch=sm_90"])
            report(ok, "nvJitLink -arch=sm_90 %s" % rel, detail)

    print("%d checks, %d failed" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
