"""A stage whose import fails."""
import kdet_no_such_module  # noqa: F401


def compile(data, options):
    return data
