"""b00: the control, the unmodified reference (``h2d_impl``) as a target."""

from __future__ import annotations

from typing import TYPE_CHECKING


from ._common import make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


def target() -> Target:
    return make_target("r23-b00-control", notes="the unmodified reference h2d_impl (control)")
