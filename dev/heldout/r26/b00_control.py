"""Control: the unmodified reference."""

from ._common import make_target


def target():
    return make_target("b00-control", notes="unmodified reference")
