"""A Python stage for kdet run --py: Triton's real llir -> ptx (kdet_stage.triton_stage), with a
comment line whose presence follows a heap address, so that it varies within one process as
the seed's libNVVM did. Used on the GPU host only (docs/PYTHON.md)."""
from kdet_stage import triton_stage


def llir_to_ptx(data, options):
    ptx = triton_stage.llir_to_ptx(data, options)
    if isinstance(ptx, str):
        ptx = ptx.encode()
    if (id(bytearray(64)) >> 5) & 1:
        first, rest = ptx.split(b"\n", 1)
        ptx = first + b"\n// planted: a heap address chose this variant\n" + rest
    return ptx
