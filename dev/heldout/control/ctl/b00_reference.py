"""Control: the reference itself (a held-out measurement must not count it as caught)."""
from contracts import load_target


def target():
    return load_target("reference")
