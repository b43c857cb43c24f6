#!/usr/bin/env python3
"""A build pipeline for `kdet capture` tests: compiles each kernel NAME.cu of a
folder to PTX with nvcc, then to a cubin with ptxas, both as subprocesses from a
thread pool (4 workers). Usage: exec_pool.py DIR ARCH. Exits 1 when a compile failed."""
import concurrent.futures
import pathlib
import subprocess
import sys


def build(cu: pathlib.Path, arch: str) -> int:
    ptx, cubin = cu.with_suffix(".ptx"), cu.with_suffix(".cubin")
    rc = subprocess.run(["nvcc", "-ptx", f"-arch={arch}", cu.name, "-o", ptx.name],
                        cwd=cu.parent).returncode
    if rc == 0:
        rc = subprocess.run(["ptxas", f"-arch={arch}", str(ptx), "-o", str(cubin)]).returncode
    return rc


def main() -> int:
    folder, arch = pathlib.Path(sys.argv[1]), sys.argv[2]
    kernels = sorted(folder.glob("*.cu"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        codes = list(pool.map(lambda cu: build(cu, arch), kernels))
    print("exec_pool:", len(kernels), "kernels, return codes", codes)
    return 0 if all(c == 0 for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
