"""Triton pipeline whose in-process PTX stage varies with a heap address, as the seed's libNVVM
did: Triton's llir -> ptx stage (CUDABackend.make_ptx, LLVM inside the process) is wrapped so
that the PTX gains one comment line naming three bits of a fresh object's address above the page
offset, which ASLR moves from process to process (valid PTX: ptxas accepts it, and the cubin is
the same; 8 variants, so 4 builds all alike is a 1-in-512 chance). For kdet capture --builds: the report must
name Triton's ptx stage, inside the process, never the pipeline's input."""
import torch
import triton
import triton.language as tl
from triton.backends.nvidia import compiler as nv

_make_ptx = nv.CUDABackend.make_ptx


def make_ptx(self, src, metadata, opt, capability):
    ptx = _make_ptx(self, src, metadata, opt, capability)
    first, rest = ptx.split("\n", 1)
    ptx = first + "\n// planted: heap address bits {}\n".format((id(object()) >> 12) & 7) + rest
    return ptx


nv.CUDABackend.make_ptx = make_ptx


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=m) * 3.0, mask=m)


x = torch.arange(4096, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
scale[(4,)](x, y, x.numel(), BLOCK=1024)
torch.cuda.synchronize()
print("triton_varies: ok", float(y[5]))
