"""`python3 -m kdet_stage NAME` prints the file of recipe NAME, for `kdet run --py FILE:FUNCTION`."""
import sys

from kdet_stage import recipe_path

if len(sys.argv) != 2:
    sys.exit("usage: python3 -m kdet_stage RECIPE   (llvmlite_ptx, triton_stage, cute_dsl, template)")
try:
    print(recipe_path(sys.argv[1]))
except FileNotFoundError as e:
    sys.exit(str(e))
