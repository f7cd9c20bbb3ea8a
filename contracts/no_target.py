"""Contract ``target``: neither ``device`` nor ``out`` given is refused with ``TypeError`` (never an ``assert``).

(Module name: the catalogue id ``target`` names the call's destination; the implementation
under test is a :class:`~contracts.targets.Target`, elsewhere.)
"""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import expect_raise
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.strategies import errors

__all__ = ["check_no_target_rejected"]


@check("target")
def check_no_target_rejected(target: Target, data: Any) -> None:
    """target: neither ``device`` nor ``out`` given raises ``TypeError``."""
    expect_raise("target", target, data, {}, errors.NO_TARGET, "neither device nor out given")


@prop("target", cap=20)
def prop_no_target(target: Target, device: torch.device, **overrides: Any) -> None:
    """target: neither device nor out raises TypeError."""

    def body(data: st.DataObject) -> None:
        payload = data.draw(hs.host_data(inputs=target.inputs), label="data")
        check_no_target_rejected(target, payload)

    run_given(body, overrides)
