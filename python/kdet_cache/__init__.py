"""kdet_cache: wrap a Python compile function with kdet's verifying cache (libkdet_cache.so).

    from kdet_cache import KdetCache
    cache = KdetCache(dir, verify_rate=1/32)
    @cache.cached(compiler_id="mycompiler 1.2 <hash of its library>", compiler_name="mycompiler 1.2")
    def compile(src: bytes, options: list[str]) -> bytes: ...
    ptx = compile(src, ["-O3"], name="kernel.ll")

A hit returns the stored bytes (hash-checked); a sampled hit recompiles and compares; a
mismatch keeps both variants and warns, and `kdet cache report --dir DIR` lists the key with
its input and compiler names.

libkdet_cache.so is found with no setting after `cmake --install` (beside this package under
the same prefix, then /usr/local/lib, /usr/lib, then ctypes.util.find_library);
$KDET_CACHE_LIB overrides. Without it, KdetCache() raises KdetCacheLibraryNotFound (an
ImportError) naming what to set. docs/CACHE.md.
"""
import ctypes
import ctypes.util
import os
import sys

__all__ = ["KdetCache", "KdetCacheError", "KdetCacheLibraryNotFound", "find_library", "load_library",
           "OK", "MISS", "MISMATCH", "REFUSED", "ERROR"]

OK, MISS, MISMATCH, REFUSED, ERROR = 0, 1, 2, 3, -1


class KdetCacheError(RuntimeError):
    """An error reported by libkdet_cache (kdet_cache_last_error)."""


class KdetCacheLibraryNotFound(KdetCacheError, ImportError):
    """libkdet_cache.so was not found or would not load; the message says what to set."""


_LIB_NAME = "libkdet_cache.so"


def _candidates():
    """Where libkdet_cache.so may be: beside this package after an install (PREFIX/lib/...),
    in a build tree, then the standard library folders."""
    here = os.path.dirname(os.path.abspath(__file__))
    seen = []
    parent = here
    for _ in range(6):  # PREFIX/lib/python3/dist-packages/kdet_cache -> PREFIX
        parent = os.path.dirname(parent)
        for sub in ("", "lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "build/capi", "capi"):
            seen.append(os.path.join(parent, sub, _LIB_NAME))
    for d in ("/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64",
              "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"):
        seen.append(os.path.join(d, _LIB_NAME))
    return seen


def find_library():
    """The path of libkdet_cache.so: $KDET_CACHE_LIB, else beside this package, else the standard
    folders, else the dynamic loader's search (ctypes.util.find_library); None when not found."""
    explicit = os.environ.get("KDET_CACHE_LIB")
    if explicit:
        return explicit
    for path in _candidates():
        if os.path.isfile(path):
            return path
    return ctypes.util.find_library("kdet_cache")


def load_library(path=None):
    """ctypes.CDLL of libkdet_cache.so; KdetCacheLibraryNotFound says what to set when absent."""
    path = path or find_library()
    if not path:
        raise KdetCacheLibraryNotFound(
            f"{_LIB_NAME} not found beside the kdet_cache module ({os.path.dirname(os.path.abspath(__file__))}), "
            "in /usr/local/lib or /usr/lib, or by the dynamic loader. Install kdet (cmake --install), or set "
            f"KDET_CACHE_LIB=/path/to/{_LIB_NAME} (or pass lib= to KdetCache)")
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise KdetCacheLibraryNotFound(
            f"{path} would not load ({e}); set KDET_CACHE_LIB=/path/to/{_LIB_NAME} to a working copy") from e


class KdetCache:
    def __init__(self, directory=None, verify_rate=1 / 32, fail_on_variants=False, lib=None):
        self.lib = load_library(lib)
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
        L.kdet_cache_name_key.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
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

    def key(self, src, compiler_id, options=(), env=(), input_name=None, compiler_name=None):
        """The key of a compile; input_name and compiler_name are what `kdet cache report` shows."""
        opts = (ctypes.c_char_p * max(1, len(options)))(*[o.encode() for o in options])
        envs = (ctypes.c_char_p * max(1, len(env)))(*[e.encode() for e in env])
        out = ctypes.create_string_buffer(33)
        self._check(self.lib.kdet_cache_make_key(self.h, src, len(src), compiler_id.encode(), opts, len(options),
                                                 envs, len(env), out))
        if input_name or compiler_name:
            self._check(self.lib.kdet_cache_name_key(self.h, out.value, input_name.encode() if input_name else None,
                                                     compiler_name.encode() if compiler_name else None))
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

    def cached(self, compiler_id, env_names=(), compiler_name=None):
        """Decorator: fn(src: bytes, options: list[str]) -> bytes, cached under its inputs.
        The wrapped function takes name= (the input's name, shown by `kdet cache report`)."""
        def wrap(fn):
            def inner(src, options=(), name=None):
                env = [f"{n}={os.environ[n]}" for n in env_names if n in os.environ]
                key = self.key(src, compiler_id, list(options), env, input_name=name,
                               compiler_name=compiler_name or compiler_id)
                return self.get_or_compile(key, lambda: fn(src, list(options)))
            return inner
        return wrap

    def close(self):
        if self.h:
            self.lib.kdet_cache_close(self.h)
            self.h = None
