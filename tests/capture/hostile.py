"""tests/capture/hostile.py - a Python pipeline that plays descriptor games (capture_hostile.sh).

Usage: python3 hostile.py LIBNVVM MODULE OUTDIR
Compiles through ctypes (the fake libNVVM's echo mode), then closes every descriptor from 3 up
(os.closerange) and opens its results file again, which takes the numbers the capture preload
held; compiles three more times, writing a line each; runs a child with an empty environment
(subprocess: vfork + execve) and one with os.posix_spawn and an environment without LD_PRELOAD.
Every byte it writes depends on the compiles alone.
"""
import ctypes
import os
import subprocess
import sys

lib = ctypes.CDLL(sys.argv[1])
src = open(sys.argv[2], "rb").read()
out = sys.argv[3]


def compile_once():
    prog = ctypes.c_void_p()
    assert lib.nvvmCreateProgram(ctypes.byref(prog)) == 0
    lib.nvvmAddModuleToProgram(prog, src, ctypes.c_size_t(len(src)), b"hostile.ll")
    opts = (ctypes.c_char_p * 1)(b"-fake-mode=echo")
    rc = lib.nvvmCompileProgram(prog, 1, opts)
    size = ctypes.c_size_t()
    lib.nvvmGetCompiledResultSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvvmGetCompiledResult(prog, buf)
    lib.nvvmDestroyProgram(ctypes.byref(prog))
    return rc, size.value, sum(buf.raw) % 65521


with open(os.path.join(out, "results.txt"), "w") as f:
    f.write("first rc %d size %d sum %d\n" % compile_once())
os.closerange(3, 65536)
results = open(os.path.join(out, "results.txt"), "a")
other = open(os.path.join(out, "other.txt"), "w")
for i in range(3):
    results.write("compile %d rc %d size %d sum %d\n" % ((i,) + compile_once()))
    results.flush()
other.write("other\n")
other.flush()
subprocess.run([sys.executable, "-c", "pass"], env={}, check=True)
env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], env)
os.waitpid(pid, 0)
results.write("done\n")
