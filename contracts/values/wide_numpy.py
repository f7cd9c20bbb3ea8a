"""``values`` for numpy arrays of dtypes torch has no user dtype of its own for: uint16/32/64 (the top bit set, read as
signed, turns negative) and complex64/128, into their own or representable dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import h2d_contracts.strategies as hs
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import accepted, require_device, run_given
from h2d_contracts.harness.target import Target

from .checks import check_values


@prop("values", cap=40)
def prop_values_wide_numpy(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: uint16/32/64 and complex64/128 numpy arrays (no torch user dtype of their own) into their own or representable dtypes."""
    require_device(target, device, "values")
    accepted(target, ["ndarray"], "values")

    def body(data: st.DataObject) -> None:
        np_dtype = np.dtype(
            data.draw(
                st.sampled_from([np.uint16, np.uint32, np.uint64, np.complex64, np.complex128]), label="numpy dtype"
            )
        )
        shape = data.draw(hs.shapes(min_dims=0), label="shape")
        if np_dtype.kind == "u":
            dtype = data.draw(
                st.sampled_from(
                    [
                        None,
                        torch.float16,
                        torch.bfloat16,
                        torch.float32,
                        torch.float64,
                        torch.bool,
                        torch.uint8,
                        torch.int32,
                        torch.int64,
                    ]
                ),
                label="dtype",
            )
            # kind "u" (checked above): an unsigned dtype; numpy's stubs cannot narrow a drawn dtype by its kind
            hi = int(np.iinfo(np_dtype).max)  # type: ignore[type-var]
            if dtype is not None and not dtype.is_floating_point and dtype is not torch.bool:
                hi = min(hi, torch.iinfo(dtype).max)
            ends = st.sampled_from(
                sorted({0, 1, hi, (hi >> 1) + 1})
            )  # the top bit set: read as signed it turns negative
            arr = data.draw(hnp.arrays(np_dtype, shape, elements=ends | st.integers(0, hi)), label="values")
        else:
            dtype = data.draw(st.sampled_from([None, torch.complex64, torch.complex128]), label="dtype")
            arr = data.draw(hnp.arrays(np_dtype, shape), label="values")
        arr = hs.array_in_layout(arr, data.draw(st.sampled_from(hs.ARRAY_LAYOUTS), label="layout"))
        kwargs: dict[str, Any] = {"device": device} if dtype is None else {"device": device, "dtype": dtype}
        check_values(target, arr, kwargs)

    run_given(body, overrides)
