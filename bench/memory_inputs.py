#!/usr/bin/env python3
"""Inputs for bench/memory.sh and tests/e2e/memory_bounds.sh.

  memory_inputs.py ptx SIZE_MB SEED A.ptx B.ptx   two PTX modules of about SIZE_MB each: the same
                                                  kernels, B with every kernel's body shuffled
  memory_inputs.py write SIZE_MB OUT              SIZE_MB MiB of text to OUT (a compiler's "output")
"""
import random
import sys


def kernel(k, n):
    lines = [f".visible .entry k{k}(.param .u64 p{k})", "{", f"  .reg .b32 %r<{n + 2}>;"]
    lines += [f"  add.s32 %r{i + 1}, %r{i}, {(i * 7919 + k) % 65536};" for i in range(n)]
    lines += ["  ret;", "}", ""]
    return lines


def ptx(size_mb, seed, path_a, path_b):
    rng = random.Random(seed)
    head = [".version 8.8", ".target sm_90a", ".address_size 64", ""]
    per_kernel = 2000  # instructions per kernel, ~70 KB of PTX
    kernels = max(1, int(size_mb * (1 << 20) / (per_kernel * 34)))
    with open(path_a, "w") as fa, open(path_b, "w") as fb:
        fa.write("\n".join(head) + "\n")
        fb.write("\n".join(head) + "\n")
        for k in range(kernels):
            lines = kernel(k, per_kernel)
            fa.write("\n".join(lines) + "\n")
            body = lines[3:-3]
            rng.shuffle(body)
            fb.write("\n".join(lines[:3] + body + lines[-3:]) + "\n")


def write(size_mb, out):
    line = b"// kdet memory benchmark output line, 64 bytes long".ljust(63, b".") + b"\n"
    block = line * 16384  # 1 MiB
    with open(out, "wb") as f:
        for _ in range(int(size_mb)):
            f.write(block)


if __name__ == "__main__":
    if sys.argv[1] == "ptx":
        ptx(float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "write":
        write(float(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(__doc__)
