"""Control: the unmodified reference (must not be caught)."""

from __future__ import annotations

from ._common import make_target


def target():
    return make_target("b00-control", notes="unmodified reference")
