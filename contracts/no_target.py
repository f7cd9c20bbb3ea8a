"""Contract ``target``: neither ``device`` nor ``out`` given is refused with ``TypeError`` (never an ``assert``).

(Module name: the catalogue id ``target`` names the call's destination; the implementation
under test is a :class:`~contracts.targets.Target`, elsewhere.)
"""

from __future__ import annotations

from typing import Any

import h2d_contracts.strategies as hs
import torch
from hypothesis import strategies as st

from . import errors
from .calling import expect_raise
from .checks import check
from .registry import prop
from .runner import run_given
from .targets import Target

__all__ = ["check_no_target_rejected"]


@check("target")
def check_no_target_rejected(target: Target, data: Any) -> None:
    """target: neither ``device`` nor ``out`` given raises ``TypeError``."""
    expect_raise("target", target, data, {}, errors.NO_TARGET, "neither device nor out given")


@prop("target")
def prop_no_target(target: Target, device: torch.device, **overrides: Any) -> None:
    """target: neither device nor out raises TypeError."""

    def body(data: st.DataObject) -> None:
        payload = data.draw(hs.host_data(inputs=target.inputs), label="data")
        check_no_target_rejected(target, payload)

    run_given(body, overrides, cap=20)
