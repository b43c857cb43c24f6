#!/usr/bin/env python3
"""cached_compile.py: the kdet_cache module (python/kdet_cache/) at work.

Run as a script it demonstrates a miss, a hit, a verified hit and a detected mismatch with a
pure-Python fake compiler, then (when libNVVM is found) the same through libNVVM via ctypes.
It imports the installed kdet_cache module, or the source tree's python/ folder.
"""
import ctypes
import os
import sys
import tempfile

try:
    from kdet_cache import KdetCache
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from kdet_cache import KdetCache


def nvvm_compile_fn(libnvvm_path):
    """A compile function over libNVVM's C API (nvvmCreateProgram ... nvvmGetCompiledResult)."""
    nv = ctypes.CDLL(libnvvm_path)
    prog_t = ctypes.c_void_p

    def compile(src, options):
        prog = prog_t()
        assert nv.nvvmCreateProgram(ctypes.byref(prog)) == 0
        try:
            assert nv.nvvmAddModuleToProgram(prog, src, ctypes.c_size_t(len(src)), b"kernel") == 0
            opts = (ctypes.c_char_p * max(1, len(options)))(*[o.encode() for o in options])
            if nv.nvvmCompileProgram(prog, len(options), opts) != 0:
                raise RuntimeError("nvvmCompileProgram failed")
            n = ctypes.c_size_t()
            nv.nvvmGetCompiledResultSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            nv.nvvmGetCompiledResult(prog, buf)
            return buf.raw
        finally:
            nv.nvvmDestroyProgram(ctypes.byref(prog))
    return compile


def demo(directory):
    counter = {"n": 0}

    def fake_compile(src, options):  # deterministic unless "-nondet" is given
        counter["n"] += 1
        out = b"// fake\n" + src.upper()
        return out + (b"// build %d\n" % counter["n"] if "-nondet" in options else b"")

    cache = KdetCache(directory, verify_rate=0)
    compile = cache.cached(compiler_id="fake-compiler 1.0")(fake_compile)
    a = compile(b"kernel one\n", ["-O3"])            # miss
    b = compile(b"kernel one\n", ["-O3"])            # hit
    assert a == b and counter["n"] == 1
    cache.close()
    checking = KdetCache(directory, verify_rate=1)    # every hit verified
    compile = checking.cached(compiler_id="fake-compiler 1.0")(fake_compile)
    c = compile(b"kernel one\n", ["-O3"])            # verified hit: the recompile matches
    assert c == a and counter["n"] == 2
    compile(b"kernel two\n", ["-nondet"], name="two.k")  # miss
    d = compile(b"kernel two\n", ["-nondet"])        # verified hit: mismatch, both kept, first served
    key = checking.key(b"kernel two\n", "fake-compiler 1.0", ["-nondet"])
    assert checking.variants(key) == 2
    for k, what in checking.events:
        print(f"{what:9} {k}")
    assert [w for _, w in checking.events] == ["verified", "miss", "mismatch"], checking.events
    print("fake compiler: miss, hit, verified hit, detected mismatch (2 variants kept)")

    nvvm = os.environ.get("KDET_NVVM_LIB", "/usr/local/cuda/lib64/libnvvm.so")
    ll = os.environ.get("KDET_NVVM_INPUT")
    if os.path.exists(nvvm) and ll:
        cid = f"libnvvm {checking.file_hash(nvvm)}"
        compile = checking.cached(compiler_id=cid, compiler_name="libNVVM")(nvvm_compile_fn(nvvm))
        src = open(ll, "rb").read()
        p1 = compile(src, ["-arch=compute_90a", "-opt=3"], name=os.path.basename(ll))  # miss
        p2 = compile(src, ["-arch=compute_90a", "-opt=3"])  # verified hit
        assert p1 == p2 and b".target sm_90a" in p1
        print(f"libNVVM through ctypes: {checking.events[-2][1]}, {checking.events[-1][1]} ({len(p1)} bytes of PTX)")
    checking.close()


if __name__ == "__main__":
    demo(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="kdet-cache-py-"))
