"""A kdet recipe: the shape of a Python-hosted compiler stage for `kdet run --py FILE:FUNCTION`.

Copy this file, fill in compile(), and run it:

  kdet run INPUT --py my_stage.py:compile --process same -n 200 -- OPTIONS...

kdet's stage worker imports this file once per worker process and calls compile(data, options)
once per run: `data` is the input file's bytes, `options` the words after `--` as a list of str.
Return the output's bytes (str is taken as UTF-8); kdet keeps exactly those bytes. Raise to fail
the run: kdet records the traceback's last line. A call that never returns is killed at
--timeout and counted as timed-out.

Rules that keep the runs honest:
- Do the expensive, run-independent work (imports, target set-up) at import time, once.
- Build everything a compile owns anew in each call (context, module, pass manager), as the
  compiler's own driver would for a new kernel, so runs share only the process, as in a real
  program that compiles many kernels.
- Write files only under tempfile.mkdtemp() (kdet's tmpdir factor moves TMPDIR per run) and
  remove them before returning.
- Never read or write fds 3 and 4: they carry kdet's requests and replies.
"""
# import the_compiler                       # once per worker

# Optional: the compiler's name and version, shown in kdet's reports.
KDET_STAGE_VERSION = "my-compiler 1.0"


def compile(data, options):
    text = data.decode("utf-8")
    # module = the_compiler.parse(text)       # new objects each call
    # out = the_compiler.lower(module, *options)
    out = text  # stands in for the compiler's output
    return out.encode("utf-8")
