"""Control: the unmodified reference (``h2d_contracts.h2d_impl.buffer_utils``) through make_target.

No class is replaced. Every contract must pass on it, and ``repro.py`` must show no
difference between it and the reference on any bug's smallest input.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import make_target


def target() -> Target:
    return make_target("control")
