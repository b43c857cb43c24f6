"""Writes its input to a fresh folder under tempfile.mkdtemp() and reads it back, as Triton's
ttgir -> llir recipe does: kdet's tmpdir factor gives every run its own TMPDIR and removes the
last one, so a worker that let Python's tempfile keep the first run's folder fails every later
run."""
import os
import shutil
import tempfile


def compile(data, options):
    folder = tempfile.mkdtemp(prefix="kdet-test-")
    try:
        path = os.path.join(folder, "in")
        with open(path, "wb") as f:
            f.write(data)
        with open(path, "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
