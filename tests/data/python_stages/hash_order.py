"""A stage whose output follows Python's hash seed: the input's distinct words, in the order of
a set of str (as a Python frontend that collects names in a set emits them)."""


def compile(data, options):
    return b" ".join(w.encode() for w in {w for w in data.decode().split()}) + b"\n"
