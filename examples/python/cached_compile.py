#!/usr/bin/env python3
"""cached_compile.py: wrap a Python compile function with kdet's verifying cache (ctypes).

    cache = KdetCache(dir, verify_rate=1/32)
    @cache.cached(compiler_id="mycompiler 1.2 <hash of its library>")
    def compile(src: bytes, options: list[str]) -> bytes: ...

A hit returns the stored bytes (hash-checked); a sampled hit recompiles and compares; a
mismatch keeps both variants and warns, and `kdet cache report --dir DIR` lists the key.

Run as a script it demonstrates a miss, a hit, a verified hit and a detected mismatch with a
pure-Python fake compiler, then (when libNVVM is found) the same through libNVVM via ctypes.
The library is found through $KDET_CACHE_LIB (path to libkdet_cache.so).
"""
import ctypes
import os
import sys
import tempfile

OK, MISS, MISMATCH, REFUSED, ERROR = 0, 1, 2, 3, -1


class KdetCacheError(RuntimeError):
    pass


class KdetCache:
    def __init__(self, directory=None, verify_rate=1 / 32, fail_on_variants=False, lib=None):
        self.lib = ctypes.CDLL(lib or os.environ.get("KDET_CACHE_LIB", "libkdet_cache.so"))
        L = self.lib
        L.kdet_cache_open.restype = ctypes.c_void_p
        L.kdet_cache_open.argtypes = [ctypes.c_char_p]
        L.kdet_cache_close.argtypes = [ctypes.c_void_p]
        L.kdet_cache_last_error.restype = ctypes.c_char_p
        L.kdet_cache_last_warning.restype = ctypes.c_char_p
        L.kdet_cache_last_warning.argtypes = [ctypes.c_void_p]
        L.kdet_cache_set_verify_rate.argtypes = [ctypes.c_void_p, ctypes.c_double]
        L.kdet_cache_set_policy.argtypes = [ctypes.c_void_p, ctypes.c_int]
        L.kdet_cache_file_hash.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        L.kdet_cache_make_key.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                          ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_char_p]
        L.kdet_cache_lookup.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                        ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int)]
        L.kdet_cache_store.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_int]
        L.kdet_cache_variants.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.kdet_cache_free.argtypes = [ctypes.c_void_p]
        self.h = L.kdet_cache_open(directory.encode() if directory else None)
        if not self.h:
            raise KdetCacheError(L.kdet_cache_last_error().decode())
        self._check(L.kdet_cache_set_verify_rate(self.h, verify_rate))
        self._check(L.kdet_cache_set_policy(self.h, 1 if fail_on_variants else 0))
        self.events = []  # (key, "miss" | "hit" | "verified" | "mismatch") of each call, for the caller

    def _check(self, rc):
        if rc == ERROR:
            raise KdetCacheError(self.lib.kdet_cache_last_error().decode())
        return rc

    def warning(self):
        return self.lib.kdet_cache_last_warning(self.h).decode()

    def file_hash(self, path):
        out = ctypes.create_string_buffer(33)
        self._check(self.lib.kdet_cache_file_hash(path.encode(), out))
        return out.value.decode()

    def key(self, src, compiler_id, options=(), env=()):
        opts = (ctypes.c_char_p * max(1, len(options)))(*[o.encode() for o in options])
        envs = (ctypes.c_char_p * max(1, len(env)))(*[e.encode() for e in env])
        out = ctypes.create_string_buffer(33)
        self._check(self.lib.kdet_cache_make_key(self.h, src, len(src), compiler_id.encode(), opts, len(options),
                                                 envs, len(env), out))
        return out.value

    def get_or_compile(self, key, compile_thunk):
        data, size, verify = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int()
        rc = self._check(self.lib.kdet_cache_lookup(self.h, key, ctypes.byref(data), ctypes.byref(size),
                                                    ctypes.byref(verify)))
        if self.warning():
            print("kdet: warning: " + self.warning().strip(), file=sys.stderr)
        if rc == REFUSED:
            raise KdetCacheError(self.lib.kdet_cache_last_error().decode())
        if rc == OK:
            cached = ctypes.string_at(data, size.value)
            self.lib.kdet_cache_free(data)
            if not verify.value:
                self.events.append((key.decode(), "hit"))
                return cached
        fresh = compile_thunk()
        src = self._check(self.lib.kdet_cache_store(self.h, key, fresh, len(fresh), 1 if rc == OK else 0))
        if self.warning():
            print("kdet: warning: " + self.warning().strip(), file=sys.stderr)
        if rc == OK:  # a verified hit: serve what the cache holds either way
            self.events.append((key.decode(), "verified" if src == OK else "mismatch"))
            return cached
        self.events.append((key.decode(), "miss"))
        return fresh

    def variants(self, key):
        return self._check(self.lib.kdet_cache_variants(self.h, key))

    def cached(self, compiler_id, env_names=()):
        """Decorator: fn(src: bytes, options: list[str]) -> bytes, cached under its inputs."""
        def wrap(fn):
            def inner(src, options=()):
                env = [f"{n}={os.environ[n]}" for n in env_names if n in os.environ]
                key = self.key(src, compiler_id, list(options), env)
                return self.get_or_compile(key, lambda: fn(src, list(options)))
            return inner
        return wrap

    def close(self):
        if self.h:
            self.lib.kdet_cache_close(self.h)
            self.h = None


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
    compile(b"kernel two\n", ["-nondet"])            # miss
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
        compile = checking.cached(compiler_id=cid)(nvvm_compile_fn(nvvm))
        src = open(ll, "rb").read()
        p1 = compile(src, ["-arch=compute_90a", "-opt=3"])  # miss
        p2 = compile(src, ["-arch=compute_90a", "-opt=3"])  # verified hit
        assert p1 == p2 and b".target sm_90a" in p1
        print(f"libNVVM through ctypes: {checking.events[-2][1]}, {checking.events[-1][1]} ({len(p1)} bytes of PTX)")
    checking.close()


if __name__ == "__main__":
    demo(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="kdet-cache-py-"))
