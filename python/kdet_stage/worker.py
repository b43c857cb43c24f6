# kdet's Python stage worker: the process a Python-hosted compiler stage runs in.
#
# kdet's worker process (`kdet __worker --backend python`, src/kdet/backend/python.cpp) starts it
# as `PY -B -c <this file> FILE FUNCTION THREADS THREAD_SEED`, with requests on fd 3 and replies on
# fd 4 (stdout and stderr are the compiler's log). It imports FILE once and says hello; then, for
# each request, applies the run's perturbation (environment, working folder, umask, CPUs, heap
# churn, the chaos allocator's seed), calls FUNCTION(input_bytes, options_list) and replies with
# the bytes it returned, or the last line of the traceback it raised.
#
# Messages are a u64 length and a payload of u32/u64 numbers and u64-length-prefixed strings,
# all little-endian, as the C++ side writes them. kdet embeds this file at build time; it also
# imports as kdet_stage.worker (its functions are plain Python, for tests).
import sys

# Before any other import: `-c` put the working folder ('') first on sys.path, so every import
# would list it (and cache its names, in heap blocks as many as the folder has files: a busy
# folder such as /tmp gave fresh interpreters other heaps), and a module there would shadow the
# standard library's.
sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import ctypes  # noqa: E402
import faulthandler  # noqa: E402
import importlib.util  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import struct  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

REQUEST_FD = 3
REPLY_FD = 4

_M64 = (1 << 64) - 1


def _splitmix(s):
    """splitmix64 as perturb/churn.cpp: (new state, value)."""
    s = (s + 0x9E3779B97F4A7C15) & _M64
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return s, z ^ (z >> 31)


def _random_size(s):
    """A log-uniform size from 16 B to 64 KiB, as perturb/churn.cpp draws them."""
    s, z = _splitmix(s)
    e = 4.0 + 12.0 * (z >> 11) / float(1 << 53)
    return s, int(2.0**e)


class Heap:
    """The C heap of this process, through libc's malloc and free (what a compiler's C++ code
    allocates from)."""

    GENERATIONS = 8
    BLOCKS = 256

    def __init__(self):
        libc = ctypes.CDLL(None)
        self.malloc = libc.malloc
        self.malloc.restype = ctypes.c_void_p
        self.malloc.argtypes = [ctypes.c_size_t]
        self.free = libc.free
        self.free.restype = None
        self.free.argtypes = [ctypes.c_void_p]
        self.kept = [[] for _ in range(self.GENERATIONS)]
        self.generation = 0
        # libkdet_chaos.so, when kdet preloaded it: reseeded per run.
        self.reseed = getattr(libc, "kdet_chaos_reseed", None)
        if self.reseed is not None:
            self.reseed.argtypes = [ctypes.c_ulonglong]
            self.reseed.restype = None
        self.pool = []

    def churn(self, seed):
        """kdet's heap churn (perturb/churn.cpp): 256 blocks of seeded log-uniform sizes, every
        other one freed; the rest released eight churns later."""
        slot = self.generation % self.GENERATIONS
        for p in self.kept[slot]:
            self.free(p)
        kept = []
        s = seed
        for i in range(self.BLOCKS):
            s, n = _random_size(s)
            p = self.malloc(n)
            if p:
                ctypes.memset(p, 1, 1)  # touch, so the block is real
            if i % 2 == 0:
                self.free(p)
            else:
                kept.append(p)
        self.kept[slot] = kept
        self.generation += 1

    def start_threads(self, count, seed):
        """kdet's allocating threads: each takes 64 seeded blocks and stays alive."""
        for i in range(count):
            s = (seed + 0x9E3779B97F4A7C15 * (i + 1)) & _M64
            t = threading.Thread(target=self._pool_thread, args=(s,), daemon=True)
            t.start()

    def _pool_thread(self, s):
        blocks = []
        for _ in range(64):
            s, n = _random_size(s)
            p = self.malloc(n)
            if p:
                ctypes.memset(p, 0xA5, n)
            blocks.append(p)
        self.pool.append(blocks)
        threading.Event().wait()


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def u32(self):
        (v,) = struct.unpack_from("<I", self.data, self.pos)
        self.pos += 4
        return v

    def u64(self):
        (v,) = struct.unpack_from("<Q", self.data, self.pos)
        self.pos += 8
        return v

    def raw(self):
        n = self.u64()
        v = self.data[self.pos : self.pos + n]
        if len(v) != n:
            raise ValueError("short string")
        self.pos += n
        return bytes(v)

    def text(self):
        return self.raw().decode("utf-8", "surrogateescape")

    def texts(self):
        return [self.text() for _ in range(self.u32())]


def _put(parts, v):
    if isinstance(v, str):
        v = v.encode("utf-8", "surrogateescape")
    parts.append(struct.pack("<Q", len(v)))
    parts.append(v)


def _read_exact(fd, n):
    chunks = []
    while n > 0:
        b = os.read(fd, min(n, 1 << 24))
        if not b:
            raise EOFError
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def read_message(fd=REQUEST_FD):
    """One request's payload, or None at the end."""
    try:
        (n,) = struct.unpack("<Q", _read_exact(fd, 8))
        return _read_exact(fd, n)
    except EOFError:
        return None


def write_message(parts, fd=REPLY_FD):
    payload = b"".join(parts)
    view = memoryview(struct.pack("<Q", len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def last_line(exc):
    """The traceback's last entry, on one line: 'ValueError: bad input' (a message of several
    lines gives its first; the whole traceback is in the run's log)."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    # A SyntaxError's entry starts with the file and the line it points at; its last line names it.
    if isinstance(exc, SyntaxError):
        return text.splitlines()[-1] if text else type(exc).__name__
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(exc).__name__


def load_stage(path, function):
    """Imports `path` once and returns (FUNCTION, version text). Raises RuntimeError with the
    reason it cannot."""
    folder = os.path.dirname(os.path.abspath(path))
    # As `python FILE` would: the stage's folder first; not the working folder, which a run's
    # cwd factor moves.
    sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else "kdet_stage_module"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError("not a Python source file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure to import is the answer
        raise RuntimeError("cannot import {}: {}".format(path, last_line(e))) from None
    fn = getattr(module, function, None)
    if fn is None:
        raise RuntimeError("{} has no function '{}'".format(path, function))
    if not callable(fn):
        raise RuntimeError("{}: '{}' is a {}, not a function".format(path, function, type(fn).__name__))
    version = "Python {} ({})".format(platform.python_version(), sys.executable)
    stage = getattr(module, "KDET_STAGE_VERSION", None)
    try:
        stage = stage() if callable(stage) else stage
    except BaseException as e:  # noqa: BLE001
        stage = "KDET_STAGE_VERSION raised " + last_line(e)
    if stage:
        version = "{}; {}".format(stage, version)
    return fn, version


def apply_run(r, heap):
    """Reads a request's perturbation from `r` and applies it; returns the churn's time (ns)."""
    churn, churn_seed = r.u32(), r.u64()
    chaos, chaos_seed = r.u32(), r.u64()
    umask = r.u32()
    cwd = r.text()
    moved_tmp = False
    for e in r.texts():
        k, eq, v = e.partition("=")
        if eq:
            os.environ[k] = v
        else:
            os.environ.pop(k, None)
        moved_tmp = moved_tmp or k in ("TMPDIR", "TEMP", "TMP")
    tempfile = sys.modules.get("tempfile")
    if moved_tmp and tempfile is not None:
        # tempfile keeps the folder it chose first; a later run's TMPDIR (the last one's is
        # removed) must be chosen again.
        tempfile.tempdir = None
    cpus = [r.u32() for _ in range(r.u32())]
    if cwd:
        os.chdir(cwd)
    if umask != 0xFFFFFFFF:
        os.umask(umask)
    if cpus:
        os.sched_setaffinity(0, cpus)
    if chaos and heap.reseed is not None:
        heap.reseed(chaos_seed)
    t0 = time.monotonic_ns()
    if churn:
        heap.churn(churn_seed)
    return time.monotonic_ns() - t0


def call(fn, data, options):
    """(status, output, detail, log): 0 with the bytes FUNCTION returned, 1 with the traceback
    of what it raised, 2 for a result that is no bytes."""
    try:
        out = fn(data, options)
    except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are failures too
        return 1, b"", last_line(e), traceback.format_exc()
    if isinstance(out, (bytes, bytearray, memoryview)):
        return 0, bytes(out), "", ""
    if isinstance(out, str):
        return 0, out.encode("utf-8", "surrogateescape"), "", ""
    return 2, b"", "the function returned {}, not bytes".format(type(out).__name__), ""


def main(argv):
    path, function = argv[1], argv[2]
    # A crash in native code writes the Python stack to the log, then dies by its signal.
    faulthandler.enable()
    threads = int(argv[3]) if len(argv) > 3 else 0
    thread_seed = int(argv[4]) if len(argv) > 4 else 0
    heap = Heap()
    if threads > 0:
        heap.start_threads(threads, thread_seed)
    try:
        fn, version = load_stage(path, function)
    except RuntimeError as e:
        write_message([struct.pack("<I", 0), *_parts(str(e), "")])
        return 2
    write_message([struct.pack("<I", 1), *_parts(version, os.path.realpath(path))])
    while True:
        payload = read_message()
        if payload is None:
            return 0
        r = Reader(payload)
        churn_ns = apply_run(r, heap)
        options = r.texts()
        data = r.raw()
        cpu0 = time.process_time_ns()
        status, out, detail, log = call(fn, data, options)
        cpu = time.process_time_ns() - cpu0
        del data
        parts = [struct.pack("<IQQ", status, cpu, churn_ns)]
        _put(parts, out)
        _put(parts, detail)
        _put(parts, log)
        del out
        write_message(parts)


def _parts(*texts):
    parts = []
    for t in texts:
        _put(parts, t)
    return parts


if __name__ == "__main__":
    sys.exit(main(sys.argv))
