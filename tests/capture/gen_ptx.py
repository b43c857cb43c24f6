#!/usr/bin/env python3
"""A code generator for the builds test: gen_ptx.py TEMPLATE -o OUT copies a PTX template
and adds a comment with $GEN_STAMP, as generators stamp what they write."""
import os
import sys

src, out = sys.argv[1], sys.argv[3]
text = open(src).read()
with open(out, "w") as f:
    f.write("// generated, stamp %s\n" % os.environ.get("GEN_STAMP", "0") + text)
