"""Contract ``bad-input``: every kind of bad input raises its documented exception type, names the argument, writes nothing.

The kinds and their types are :data:`contracts.errors.BAD_INPUT_KINDS` (59 kinds: wrong
kinds of data, ragged lists, values the target dtype cannot hold carried by every source
kind and route, bad ``out``, ``dtype`` and ``device`` arguments). The type must be exactly
the documented one, the message must name the argument at fault (``data``, ``out``,
``dtype`` or ``device``, or the target's own name for it), and ``out`` stays untouched.
"""

from __future__ import annotations

from typing import Any

import h2d_contracts.strategies as hs
import torch
from hypothesis import strategies as st

from . import contexts
from .calling import expect_raise
from .checks import check
from .domain import in_domain
from .registry import prop
from .runner import Rows, require_device, run_given
from .targets import Target
from .violations import NotApplicable

__all__ = ["check_bad_input"]


@check("bad-input")
def check_bad_input(target: Target, data: Any, kwargs: dict[str, Any], raises: type[BaseException], kind: str) -> None:
    """bad-input: the documented exception type (exactly), and ``out`` untouched.

    Under the drawn calling context (:mod:`contracts.contexts`), except that an inference
    ``out`` drawn under ``inference_mode`` is tried under ``no_grad``: torch refuses an
    inference tensor's in-place update outside inference mode only, so inside it the call
    is valid (docs/reference.md, calling contexts).
    """
    out = kwargs.get("out")
    if out is not None and "out" not in target.capabilities:
        target.require("out", "bad-input")
    if contexts.ambient() == "inference_mode" and isinstance(out, torch.Tensor) and out.is_inference():
        with contexts.calling_context("no_grad"):
            expect_raise("bad-input", target, data, kwargs, raises, f"bad input {kind!r}")
        return
    expect_raise("bad-input", target, data, kwargs, raises, f"bad input {kind!r}")


@prop("bad-input")
def prop_bad_input_value_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """bad-input: every value-range kind (NaN/inf/out of range/complex/unsigned) x list, ndarray, tensor x out=, dtype= (a table)."""
    require_device(target, device, "bad-input")
    del overrides  # deterministic: every row every run
    with_out = "out" in target.capabilities
    rows = Rows("bad-input value table")
    for bad in hs.value_bad_inputs_table(device):
        if "out" in bad.kwargs and not with_out:
            continue
        rows.row(
            check_bad_input,
            target,
            bad.data,
            bad.kwargs,
            bad.raises,
            f"{bad.kind} as a {type(bad.data).__name__} via {'out=' if 'out' in bad.kwargs else 'dtype='}",
        )
    rows.finish()


@prop("bad-input")
def prop_bad_input(
    target: Target, device: torch.device, kinds: tuple[str, ...] | None = None, **overrides: Any
) -> None:
    """bad-input: each catalogue kind raises its documented exception type; out untouched."""
    require_device(target, device, "bad-input")
    seen = {"inside": 0, "outside": 0}

    def body(data: st.DataObject) -> None:
        bad = data.draw(hs.bad_inputs(device, kinds=kinds), label="bad input")
        if not in_domain(target, bad.data, bad.kwargs):
            seen["outside"] += 1  # data of a kind the target does not declare: not applicable
            return
        seen["inside"] += 1
        check_bad_input(target, bad.data, bad.kwargs, bad.raises, bad.kind)

    run_given(body, overrides, cap=10 if kinds and len(kinds) == 1 else None)
    if not seen["inside"] and seen["outside"]:
        raise NotApplicable(
            f"bad-input {kinds or ''}: every drawn input lies outside target {target.name!r}'s declared inputs {sorted(target.inputs)}"
        )
