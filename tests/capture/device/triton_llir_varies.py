"""A Python stage for kdet run --py: Triton's real llir -> ptx (kdet_stage.triton_stage), with a
comment line naming a bit of a malloc'd block's address, so that it varies within one process
as the seed's libNVVM did (kdet's heap churn moves malloc's blocks). A Python object's own
address would not do: objects under 512 bytes come from pymalloc's pools, which churn does not
touch (seen on the GPU host: 40 runs, one output). Used on the GPU host only (docs/PYTHON.md)."""
import ctypes

from kdet_stage import triton_stage


def llir_to_ptx(data, options):
    ptx = triton_stage.llir_to_ptx(data, options)
    if isinstance(ptx, str):
        ptx = ptx.encode()
    block = ctypes.create_string_buffer(4096)  # > 512 bytes: malloc, not pymalloc
    first, rest = ptx.split(b"\n", 1)
    bit = (ctypes.addressof(block) >> 12) & 1
    return first + b"\n// planted: heap address bit " + str(bit).encode() + b"\n" + rest
