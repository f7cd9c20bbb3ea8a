"""Control: the unmodified reference (every part is ``h2d_contracts.h2d_impl``'s own).

repro.py runs every input through it and through the reference: it must never differ.
"""

from ._common import make_target


def target():
    return make_target("b00-control")
