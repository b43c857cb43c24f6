"""kdet_stage: Python-hosted compiler stages for `kdet run INPUT --py FILE.py:FUNCTION`.

Each recipe module here holds a FUNCTION(input_bytes, options) -> bytes that kdet's stage worker
(worker.py) calls once per run, in one interpreter per worker (docs/PYTHON.md):

  llvmlite_ptx.py  LLVM IR -> PTX through llvmlite's NVPTX back end
  triton_stage.py  Triton's llir -> ptx (translate_to_asm) and ttgir -> llir (make_llir)
  cute_dsl.py      CuTe DSL: MLIR module text + pass pipeline -> PTX
  template.py      the shape of a recipe for another compiler

`recipe_path(name)` gives a recipe's file for --py:
  kdet run k.ll --py "$(python3 -m kdet_stage llvmlite_ptx)":compile -- -mcpu=sm_80
"""
import os


def recipe_path(name):
    """The file of the recipe module `name` (llvmlite_ptx, triton_stage, cute_dsl, template)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    if not os.path.isfile(path):
        raise FileNotFoundError("no kdet recipe named {!r} ({})".format(name, path))
    return path
