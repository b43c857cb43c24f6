"""kdet recipes for Triton's NVIDIA back end: llir -> ptx and ttgir -> llir.

  kdet run kernel.llir --py "$(python3 -m kdet_stage triton_stage)":llir_to_ptx -- --arch=90
  kdet run kernel.ttgir --py "$(python3 -m kdet_stage triton_stage)":ttgir_to_llir -- --arch=90 --num-warps=4

Both call what Triton's own CUDABackend calls for the stage (third_party/nvidia/backend/
compiler.py), with the options Triton used:

  llir_to_ptx    triton._C.libtriton.llvm.translate_to_asm(llir, 'nvptx64-nvidia-cuda', proc,
                 features, ['nvptx-mad-wide-opt'], enable_fp_fusion, False), then CUDABackend.make_ptx's
                 rewrite of .version and .target. The result is PTX text.
  ttgir_to_llir  CUDABackend.make_llir on the module parsed from the TTGIR text (a fresh
                 ir.context with Triton's and the back end's dialects, each call).

Options: --arch=NN (the capability, e.g. 80, 90; required), --ptx-version=NN (default: from
ptxas, as Triton does), --no-fp-fusion (enable_fp_fusion=False), --num-warps=N, --num-ctas=N,
--num-stages=N (ttgir_to_llir: the options Triton's parse_options takes). The options a
captured Triton compile used are in its metadata JSON (arch, ptx_version, enable_fp_fusion,
num_warps, ...).

Written from Triton's public sources (3.x); llir_to_ptx ran on a GPU host with Triton 3.6 (docs/PYTHON.md).
"""
import os
import re
import tempfile

import triton
from triton._C.libtriton import llvm

KDET_STAGE_VERSION = "triton {}".format(getattr(triton, "__version__", "?"))


def _options(options):
    o = {"arch": None, "ptx_version": None, "enable_fp_fusion": True, "num_warps": None,
         "num_ctas": None, "num_stages": None}
    for arg in options:
        key, eq, value = arg.lstrip("-").partition("=")
        key = key.replace("-", "_")
        if key == "no_fp_fusion" and not eq:
            o["enable_fp_fusion"] = False
        elif key in ("arch", "ptx_version", "num_warps", "num_ctas", "num_stages") and eq:
            o[key] = int(value.replace("sm_", "").replace("sm", "").rstrip("a"))
        else:
            raise ValueError("unknown option {!r}: use --arch=NN, --ptx-version=NN, --no-fp-fusion, "
                             "--num-warps=N, --num-ctas=N, --num-stages=N".format(arg))
    if o["arch"] is None:
        raise ValueError("--arch=NN is required (the capability Triton compiled for, e.g. 90)")
    return o


def _backend(o):
    """Triton's CUDABackend for the capability, and its parsed options."""
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend

    backend = CUDABackend(GPUTarget("cuda", o["arch"], 32))
    opts = {"enable_fp_fusion": o["enable_fp_fusion"]}
    for key in ("ptx_version", "num_warps", "num_ctas", "num_stages"):
        if o[key] is not None:
            opts[key] = o[key]
    return backend, backend.parse_options(opts)


def llir_to_ptx(data, options):
    from triton.backends.nvidia import compiler as nv

    o = _options(options)
    _, opt = _backend(o)
    capability = o["arch"]
    ptx_version = nv.get_ptx_version_from_options(opt, capability)
    proc = nv.sm_arch_from_capability(capability)
    features = nv.get_features(opt, capability)
    llvm.init_targets()
    ptx = llvm.translate_to_asm(data.decode("utf-8"), "nvptx64-nvidia-cuda", proc, features,
                                ["nvptx-mad-wide-opt"], opt.enable_fp_fusion, False)
    # CUDABackend.make_ptx's post-processing, so the output is the PTX Triton keeps.
    version = "{}.{}".format(ptx_version // 10, ptx_version % 10)
    ptx = re.sub(r"\.version \d+\.\d+", ".version " + version, ptx, flags=re.MULTILINE)
    ptx = re.sub(r"\.target sm_\d+", ".target sm_{}".format(capability), ptx, flags=re.MULTILINE)
    ptx = re.sub(r",\s*debug|debug,\s*", "", ptx)
    return ptx.encode("utf-8")


def ttgir_to_llir(data, options):
    from triton._C.libtriton import ir

    o = _options(options)
    backend, opt = _backend(o)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    # Triton parses IR from a file; a private one per call, in this run's TMPDIR.
    folder = tempfile.mkdtemp(prefix="kdet-ttgir-")
    path = os.path.join(folder, "kernel.ttgir")
    try:
        with open(path, "wb") as f:
            f.write(data)
        module = ir.parse_mlir_module(path, context)
        module.context = context
        metadata = {}
        llir = backend.make_llir(module, metadata, opt, o["arch"])
    finally:
        os.unlink(path) if os.path.exists(path) else None
        os.rmdir(folder)
    return llir.encode("utf-8")
