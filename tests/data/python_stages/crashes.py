"""A stage that crashes the interpreter, as a segfault in a compiler's native code does."""
import faulthandler


def compile(data, options):
    faulthandler._sigsegv()  # CPython's own way to die by SIGSEGV
    return data
