"""A stage that never returns."""
import time


def compile(data, options):
    while True:
        time.sleep(1)
