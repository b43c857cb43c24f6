"""Triton pipeline for kdet capture --builds on a GPU machine: three JIT kernels, launched once."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)


@triton.jit
def softmax_kernel(x, out, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    v = tl.load(x + row * cols + c, mask=c < cols, other=-float("inf"))
    e = tl.exp(v - tl.max(v, 0))
    tl.store(out + row * cols + c, e / tl.sum(e, 0), mask=c < cols)


@triton.jit
def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


n = 4096
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
o = torch.empty_like(x)
add_kernel[(n // 256,)](x, y, o, n, BLOCK=256)
s = torch.randn(64, 1000, device="cuda")
so = torch.empty_like(s)
softmax_kernel[(64,)](s, so, 1000, BLOCK=1024)
a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
c = torch.empty(256, 256, device="cuda", dtype=torch.float32)
matmul_kernel[(4, 4)](a, b, c, 256, 256, 256, BM=64, BN=64, BK=32)
torch.cuda.synchronize()
print("triton: ok")
