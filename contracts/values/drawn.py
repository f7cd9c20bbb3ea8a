"""Drawn ``values`` properties: every valid call, zero-length inputs, and float copies to their own dtype bit for bit
(NaN payloads, -0.0, subnormals)."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import accepted, require_device, run_given
from h2d_contracts.harness.target import Target

from .checks import check_values


@prop("values")
def prop_values(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every valid call (list / ndarray / tensor, any layout, with/without dtype and out) gives the reference conversion."""
    require_device(target, device, "values")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=want_out), label="call"
        )
        check_values(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("values", cap=30)
def prop_values_zero_length(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: zero-length inputs ([], empty arrays, shape (2, 0)) give the right shape, dtype and device."""
    require_device(target, device, "values")
    want_out = None if "out" in target.capabilities else False
    empty_shapes = hs.shapes(min_dims=1).filter(lambda s: 0 in s)

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, shape=empty_shapes, out=want_out),
            label="call",
        )
        check_values(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("values", cap=40)
def prop_values_pure_copy_bits(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: float tensors/arrays copied to their own dtype keep every bit (NaN payloads, -0.0, subnormals)."""
    require_device(target, device, "values")
    float_dtypes = [d for d in hs.USER_DTYPES + hs.FLOAT8_DTYPES if d.is_floating_point]
    want_out = "out" in target.capabilities
    domain = accepted(target, ["tensor", "ndarray"], "values")

    def body(data: st.DataObject) -> None:
        dtype = data.draw(st.sampled_from(float_dtypes), label="dtype")
        shape = data.draw(hs.shapes(min_dims=1, min_side=1), label="shape")
        kinds = [k for k in domain if k == "tensor" or dtype in hs.NUMPY_OF]
        if not kinds:
            return
        kind = data.draw(st.sampled_from(kinds), label="kind")
        values = data.draw(hs.tensor_values(dtype, tuple(shape), None), label="values")
        # At least one NaN with a payload (the case a canonicalising copy gets wrong).
        nan_bits = {
            torch.float16: 0x7E01,
            torch.bfloat16: 0x7FC1,
            torch.float32: 0x7FC00001,
            torch.float64: 0x7FF8000000000001,
        }
        if dtype in nan_bits:
            hs.set_bits(values, data.draw(st.integers(0, values.numel() - 1), label="NaN at"), nan_bits[dtype])
        payload: Any = values.numpy() if kind == "ndarray" else values
        kwargs: dict[str, Any] = {"device": device}
        how = data.draw(
            st.sampled_from(["own", "dtype", "out"] if want_out else ["own", "dtype"]), label="dtype given as"
        )
        if how == "dtype":
            kwargs["dtype"] = dtype
        elif how == "out":
            kwargs = {"out": torch.zeros(tuple(shape), dtype=dtype, device=device)}
        check_values(target, payload, kwargs)

    run_given(body, overrides)
