#!/usr/bin/env python3
"""chaos_driver.py: run the CUDA compiler libraries in-process and save what they produce.

Used by tests/e2e/chaos_real_compilers.sh, with and without libkdet_chaos.so
preloaded. Compiles with libNVVM (*.ll -> PTX), NVRTC (*.cu -> PTX and cubin) and
nvJitLink (*.ptx -> cubin), each input --repeat times in this one process, and
writes every result to OUTDIR/<library>.<input>.<options>.<repeat>.<ext>.
When the chaos library is loaded it calls kdet_chaos_reseed(seed + repeat)
before each repeat (the in-process hook of `--process same`) and writes the
number of chaos blocks to OUTDIR/chaos_allocations.txt. The seconds spent inside
the compiler libraries (all repeats) go to OUTDIR/compile_seconds.txt.

Usage: chaos_driver.py OUTDIR --cuda-home DIR [--repeat N] [--seed S]
                       [--nvvm F.ll:ARCH ...] [--nvrtc F.cu:ARCH ...] [--nvjitlink F.ptx:ARCH ...]
Exit 0 when everything compiled, 1 otherwise (messages on stderr).
"""
import argparse
import ctypes
import os
import sys
import time

NVJITLINK_INPUT_PTX = 2  # nvJitLinkInputType in nvJitLink.h


def load(home, name):
    for sub in ("lib64", "lib", "nvvm/lib64"):
        path = os.path.join(home, sub, name)
        if os.path.exists(path):
            return ctypes.CDLL(path)
    raise SystemExit("chaos_driver: %s not found under %s" % (name, home))


def options(opts):
    arr = (ctypes.c_char_p * max(1, len(opts)))()
    for i, o in enumerate(opts):
        arr[i] = o.encode()
    return arr


def sized_buffer(get_size, get_data, handle):
    size = ctypes.c_size_t()
    if get_size(handle, ctypes.byref(size)) != 0:
        raise RuntimeError("size query failed")
    buf = ctypes.create_string_buffer(size.value)
    if get_data(handle, buf) != 0:
        raise RuntimeError("result query failed")
    return buf.raw[: size.value]


def nvvm(lib, text, name, opts):
    """NVVM IR -> PTX bytes."""
    prog = ctypes.c_void_p()
    if lib.nvvmCreateProgram(ctypes.byref(prog)) != 0:
        raise RuntimeError("nvvmCreateProgram failed")
    try:
        rc = lib.nvvmAddModuleToProgram(prog, text, ctypes.c_size_t(len(text)), name.encode())
        if rc == 0:
            rc = lib.nvvmCompileProgram(prog, len(opts), options(opts))
        if rc != 0:
            log = sized_buffer(lib.nvvmGetProgramLogSize, lib.nvvmGetProgramLog, prog)
            raise RuntimeError("libNVVM rc=%d: %s" % (rc, log.decode(errors="replace")))
        return {"ptx": sized_buffer(lib.nvvmGetCompiledResultSize, lib.nvvmGetCompiledResult, prog)}
    finally:
        lib.nvvmDestroyProgram(ctypes.byref(prog))


def nvrtc(lib, text, name, opts):
    """CUDA C++ -> PTX bytes and (for -arch=sm_*) cubin bytes."""
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), text, name.encode(), 0, None, None) != 0:
        raise RuntimeError("nvrtcCreateProgram failed")
    try:
        rc = lib.nvrtcCompileProgram(prog, len(opts), options(opts))
        if rc != 0:
            log = sized_buffer(lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog, prog)
            raise RuntimeError("NVRTC rc=%d: %s" % (rc, log.decode(errors="replace")))
        out = {"ptx": sized_buffer(lib.nvrtcGetPTXSize, lib.nvrtcGetPTX, prog)}
        if any(o.startswith("-arch=sm_") for o in opts):
            out["cubin"] = sized_buffer(lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN, prog)
        return out
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def nvjitlink(lib, text, name, opts):
    """PTX -> linked cubin bytes."""
    handle = ctypes.c_void_p()
    if lib.nvJitLinkCreate(ctypes.byref(handle), len(opts), options(opts)) != 0:
        raise RuntimeError("nvJitLinkCreate failed")
    try:
        data = text + b"\0"
        rc = lib.nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, data, ctypes.c_size_t(len(data)),
                                  name.encode())
        if rc == 0:
            rc = lib.nvJitLinkComplete(handle)
        if rc != 0:
            log = sized_buffer(lib.nvJitLinkGetErrorLogSize, lib.nvJitLinkGetErrorLog, handle)
            raise RuntimeError("nvJitLink rc=%d: %s" % (rc, log.decode(errors="replace")))
        return {"cubin": sized_buffer(lib.nvJitLinkGetLinkedCubinSize,
                                      lib.nvJitLinkGetLinkedCubin, handle)}
    finally:
        lib.nvJitLinkDestroy(ctypes.byref(handle))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--cuda-home", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nvvm", nargs="*", default=[])
    ap.add_argument("--nvrtc", nargs="*", default=[])
    ap.add_argument("--nvjitlink", nargs="*", default=[])
    args = ap.parse_args()

    this = ctypes.CDLL(None)
    reseed = getattr(this, "kdet_chaos_reseed", None)
    if reseed is not None:
        reseed.argtypes = [ctypes.c_ulonglong]
    jobs = []
    if args.nvvm:
        jobs += [("nvvm", nvvm, load(args.cuda_home, "libnvvm.so"), j) for j in args.nvvm]
    if args.nvrtc:
        jobs += [("nvrtc", nvrtc, load(args.cuda_home, "libnvrtc.so"), j) for j in args.nvrtc]
    if args.nvjitlink:
        lib = load(args.cuda_home, "libnvJitLink.so")
        jobs += [("nvjitlink", nvjitlink, lib, j) for j in args.nvjitlink]
    failed = 0
    busy = 0.0
    for rep in range(args.repeat):
        if reseed is not None:
            reseed(args.seed + rep)
        for tag, compile_fn, lib, job in jobs:
            path, arch = job.rsplit(":", 1)
            opts = ["-arch=" + arch] + (["-opt=3"] if tag == "nvvm" else [])
            with open(path, "rb") as f:
                text = f.read()
            try:
                start = time.perf_counter()
                results = compile_fn(lib, text, os.path.basename(path), opts)
                busy += time.perf_counter() - start
            except RuntimeError as e:
                print("chaos_driver: %s %s %s: %s" % (tag, path, arch, e), file=sys.stderr)
                failed += 1
                continue
            for ext, data in results.items():
                name = "%s.%s.%s.%d.%s" % (tag, os.path.basename(path), arch, rep, ext)
                with open(os.path.join(args.outdir, name), "wb") as f:
                    f.write(data)
    with open(os.path.join(args.outdir, "compile_seconds.txt"), "w") as f:
        f.write("%.6f\n" % busy)
    if reseed is not None:
        count = this.kdet_chaos_allocations
        count.restype = ctypes.c_ulonglong
        with open(os.path.join(args.outdir, "chaos_allocations.txt"), "w") as f:
            f.write("%d\n" % count())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
