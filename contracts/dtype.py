"""Contract ``dtype``: ``dtype=`` wins, else ``out.dtype``, else the data's own; ``dtype`` disagreeing with ``out.dtype`` is refused.

The data's own dtype is ``torch.tensor``'s inference for lists (Python floats follow torch's
default dtype) and the array's or tensor's dtype otherwise. A disagreement raises
``TypeError`` (never an ``assert``, which ``python -O`` removes) and writes nothing.
"""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, expect_raise, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail
from h2d_contracts.strategies import errors

__all__ = ["check_dtype_mismatch_rejected", "check_dtype_resolution"]


@check("dtype")
def check_dtype_resolution(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """dtype: explicit ``dtype`` wins, else ``out.dtype``, else the data's own (torch.tensor's inference)."""
    call = target.describe_call(data, kwargs)
    expected = resolve_dtype(data, kwargs)
    result = call_valid("dtype", target, data, kwargs)
    synchronize()
    if result.dtype != expected:
        source = (
            "dtype="
            if kwargs.get("dtype") is not None
            else "out.dtype"
            if kwargs.get("out") is not None
            else "the data's own dtype"
        )
        fail("dtype", f"result dtype (should come from {source})", got=result.dtype, expected=expected, call=call)


@check("dtype")
def check_dtype_mismatch_rejected(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """dtype: ``dtype=`` disagreeing with ``out.dtype`` raises ``TypeError`` (not an assert) and writes nothing."""
    target.require("out", "dtype")
    expect_raise("dtype", target, data, kwargs, errors.DTYPE_MISMATCH, "dtype disagrees with out.dtype")


@prop("dtype")
def prop_dtype_resolution(target: Target, device: torch.device, **overrides: Any) -> None:
    """dtype: explicit dtype, else out.dtype, else the data's own."""
    require_device(target, device, "dtype")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=want_out), label="call"
        )
        check_dtype_resolution(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("dtype")
def prop_dtype_mismatch(target: Target, device: torch.device, **overrides: Any) -> None:
    """dtype: dtype= disagreeing with out.dtype raises TypeError and writes nothing."""
    require_device(target, device, "dtype")
    target.require("out", "dtype")

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=True, dtype=False), label="call"
        )
        out_dtype = call.kwargs["out"].dtype
        other = data.draw(hs.torch_dtypes().filter(lambda d: d != out_dtype), label="mismatching dtype")
        check_dtype_mismatch_rejected(target, call.data, {**call.kwargs, "dtype": other})

    run_given(body, overrides)
