"""kdet recipe for CuTe DSL (CUTLASS's Python DSL): MLIR module text + pass pipeline -> PTX.

  kdet run kernel.mlir --py "$(python3 -m kdet_stage cute_dsl)":compile \\
      --process same -- "--pipeline=builtin.module(cute-to-nvvm{cubin-chip=sm_90a ...})"

What the seed's repro did, as one call: a new ir.Context, ir.Module.parse of the module text,
PassManager.parse(pipeline).run(module.operation), and the PTX the pipeline dumps. The input is
the module CuTe DSL hands to its pass pipeline (CUTE_DSL_KEEP_IR=1 keeps it; see docs/PYTHON.md)
and the pipeline string is the option --pipeline=... (the one CuTe DSL built for that module).

kdet sets the dump paths per run: every dump-ptx-path= in the pipeline is pointed at a private
folder made for this call (under the run's TMPDIR), and one is added to the cute-to-nvvm{...}
options when the pipeline names none. The PTX files the pipeline wrote there, in name order,
are the output.

Written from CUTLASS's public DSL sources (cutlass/base_dsl/compiler.py: PassManager.parse and
run; KeepPTX: dump-ptx-path=PREFIX writes PREFIX.<arch>.ptx); not run where kdet was built.
"""
import glob
import os
import re
import shutil
import tempfile

import cutlass  # noqa: F401 - registers CuTe DSL's dialects and passes
from cutlass._mlir import ir
from cutlass._mlir.passmanager import PassManager


def KDET_STAGE_VERSION():
    try:
        from importlib.metadata import version

        return "nvidia-cutlass-dsl " + version("nvidia-cutlass-dsl")
    except Exception:  # noqa: BLE001 - a version is a courtesy
        return "cutlass " + getattr(cutlass, "__version__", "?")


_DUMP = re.compile(r"dump-ptx-path\s*=\s*('[^']*'|\"[^\"]*\"|[^\s}]*)")


def _pipeline(options, prefix):
    """The pipeline of --pipeline=..., its PTX dumped at `prefix`."""
    pipeline = None
    for arg in options:
        if arg.startswith("--pipeline="):
            pipeline = arg[len("--pipeline="):]
        else:
            raise ValueError("unknown option {!r}: give --pipeline=PIPELINE".format(arg))
    if not pipeline:
        raise ValueError("--pipeline=PIPELINE is required (the pass pipeline string CuTe DSL used)")
    quoted = "dump-ptx-path='{}'".format(prefix)
    if _DUMP.search(pipeline):
        return _DUMP.sub(lambda _: quoted, pipeline)
    m = re.search(r"cute-to-nvvm\{", pipeline)
    if m:
        return pipeline[: m.end()] + quoted + " " + pipeline[m.end():]
    m = re.search(r"cute-to-nvvm", pipeline)
    if m:
        return pipeline[: m.end()] + "{" + quoted + "}" + pipeline[m.end():]
    raise ValueError("the pipeline has no cute-to-nvvm pass to dump PTX from; name one, or "
                     "give dump-ptx-path= in the pipeline")


def compile(data, options):
    folder = tempfile.mkdtemp(prefix="kdet-cute-")
    try:
        pipeline = _pipeline(options, os.path.join(folder, "kernel"))
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse(data.decode("utf-8"))
            PassManager.parse(pipeline).run(module.operation)
        files = sorted(glob.glob(os.path.join(folder, "*.ptx")))
        if not files:
            raise RuntimeError("the pipeline ran but dumped no PTX into " + folder)
        out = b""
        for name in files:
            with open(name, "rb") as f:
                out += f.read()
        return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)
