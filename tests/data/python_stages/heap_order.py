"""A stage whose output follows the C heap: it puts the input's words in the order of the
addresses of blocks it mallocs for them, as a compiler that iterates a pointer-keyed map does.
Fresh interpreters started alike give one order; churn or earlier runs in the process move it."""
import ctypes

_libc = ctypes.CDLL(None)
_malloc = _libc.malloc
_malloc.restype = ctypes.c_void_p
_malloc.argtypes = [ctypes.c_size_t]
_free = _libc.free
_free.restype = None
_free.argtypes = [ctypes.c_void_p]


def compile(data, options):
    names = data.split()
    blocks = [_malloc(48 + 24 * (i % 7)) for i in range(len(names))]
    order = sorted(range(len(names)), key=lambda i: blocks[i])
    for b in blocks:
        _free(b)
    return b"\n".join(names[i] for i in order) + b"\n"
