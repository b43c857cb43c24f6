#!/usr/bin/python3
"""kdet capture compare at the reporter's scale, side by side (docs/PERFORMANCE.md).

Writes BUILDS synthetic capture folders in the preload's record format (docs/CAPTURE.md,
"What is recorded"), each with KERNELS kernels of two stages (a libNVVM compile whose PTX,
written without its NUL, feeds a ptxas compile), VARY of them with another cubin in each build,
then times `kdet capture compare` over them and reads its peak memory. Two rows a size:

- kernels: 1/4 of KERNELS, then KERNELS, with small PTX: wall time should grow linearly;
- artifact size: KERNELS with small PTX, then with PTX 32 times larger: memory should not grow
  with the artifacts (only the kernels), which is the goal.

Usage: bench/builds_compare.py KDET [--kernels 6491] [--builds 3] [--vary 161] [--reps 3]
"""
import argparse
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def xxh_missing():
    sys.exit("builds_compare: python3-xxhash is needed (apt-get install python3-xxhash)")


try:
    import xxhash
except ImportError:
    xxhash = None


def h(data):
    if xxhash is None:
        xxh_missing()
    return xxhash.xxh3_128_hexdigest(data)


def hexs(s):
    return "x" + s.encode().hex()


def make_build(folder, b, kernels, vary, ptx_bytes):
    os.makedirs(f"{folder}/raw/records")
    os.makedirs(f"{folder}/raw/blobs")
    log = []
    pack = open(f"{folder}/raw/blobs/1-a.pack", "wb")
    seen = set()

    def blob(data):
        d = h(data)
        if d not in seen:
            seen.add(d)
            pack.write(b"kdet-blob %s %d\n" % (d.encode(), len(data)) + data)
        return d

    lib, ptxas = "a" * 32, "b" * 32
    for k in range(kernels):
        name = f"k{k:05d}"
        ir = f"define void @{name}() {{ ret void }}\n!0 = !{{void ()* @{name}, !\"kernel\", i32 1}}\n".encode()
        pad = "// " + "p" * max(0, ptx_bytes - 120) + "\n"
        ptx = f".version 8.0\n.target sm_90a\n.address_size 64\n{pad}.visible .entry {name}()\n{{\nret;\n}}\n".encode()
        cubin = b"CUBIN " + name.encode() + (b" build %d" % b if k < vary else b"")
        hi, ho = blob(ir), blob(ptx + b"\0")
        t = 1000 * k
        log.append(f"kdet-capture-record 1 {2*k+1}\nkind nvvm\npid 1\nppid 1\nthread 1\ntime_ns {t}\n"
                   f"lib {hexs('/cuda/libnvvm.so.4')}\nlib_hash {lib}\nlib_size 3\n"
                   f"module {hi} {len(ir)} 0 {hexs('m')}\noption {hexs('-arch=compute_90a')}\nbegin\n"
                   f"{2*k+1} result 0\n{2*k+1} output nvvm {ho} {len(ptx)+1}\n")
        pi, pc = blob(ptx), blob(cubin)
        log.append(f"kdet-capture-record 1 {2*k+2}\nkind exec\npid 2\nppid 1\nthread 2\ntime_ns {t+1}\n"
                   f"lib {hexs('/cuda/bin/ptxas')}\nlib_hash {ptxas}\nlib_size 3\nargv0 {hexs('ptxas')}\n"
                   f"cwd {hexs('/w')}\nfile {pi} {len(ptx)} {hexs('/w/' + name + '.ptx')}\n"
                   f"option {hexs('{input}')}\noption {hexs('-o')}\noption {hexs('{output}')}\nbegin\n"
                   f"{2*k+2} status exited 0\n{2*k+2} result 0\n{2*k+2} output cubin {pc} {len(cubin)}\n")
    pack.close()
    with open(f"{folder}/raw/records/1-a.log", "w") as f:
        f.write("".join(log))


def measure(kdet, root, kernels, builds, vary, ptx_bytes, reps):
    dirs = []
    for b in range(1, builds + 1):
        d = f"{root}/k{kernels}-p{ptx_bytes}/build-{b}"
        make_build(d, b, kernels, vary, ptx_bytes)
        dirs.append(d)
    size = sum(os.path.getsize(f"{d}/raw/blobs/1-a.pack") for d in dirs)
    walls, rss = [], []
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.monotonic()
        p = subprocess.run([kdet, "capture", "compare", *dirs, "--json", f"{root}/out.json", "-q"])
        walls.append(time.monotonic() - t)
        if p.returncode != (1 if vary else 0):
            sys.exit(f"builds_compare: kdet exited {p.returncode}")
        rss.append(max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before))
    shutil.rmtree(f"{root}/k{kernels}-p{ptx_bytes}")
    walls.sort()
    return walls[len(walls) // 2], max(rss) / 1024, size / 2**20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kdet")
    ap.add_argument("--kernels", type=int, default=6491)
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--vary", type=int, default=161)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="kdet-bench-builds-")
    try:
        rows = []
        for kernels, ptx in [(a.kernels // 4, 1024), (a.kernels, 1024), (a.kernels, 32768)]:
            vary = min(a.vary, kernels)
            wall, rss, size = measure(a.kdet, root, kernels, a.builds, vary, ptx, a.reps)
            rows.append((kernels, ptx, size, wall, rss))
        print(f"| kernels | PTX bytes | blobs (MiB, {a.builds} builds) | median wall (s) | peak RSS (MiB) |")
        print("|---:|---:|---:|---:|---:|")
        for k, p, s, w, r in rows:
            print(f"| {k} | {p} | {s:.1f} | {w:.2f} | {r:.0f} |")
        print(f"wall ratio, {a.kernels} / {a.kernels // 4} kernels: {rows[1][3] / rows[0][3]:.2f} (4.00 = linear)")
        print(f"RSS ratio, PTX 32 KiB / 1 KiB at {a.kernels} kernels: {rows[2][4] / rows[1][4]:.2f} "
              f"(artifacts {rows[2][2] / rows[1][2]:.1f}x larger; goal: about 1)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
