"""b09 (CPU): object ndarrays are taken as lists (``data.tolist()``) instead of refused.

Where: ``h2d_impl/_host.py::as_source_tensor`` (the ndarray branch; every entry point).

Change: a widening ("pandas and pyarrow hand over nullable integer columns as object arrays of
Python ints: convert them the way a list is converted, leaf check included")::

    if isinstance(data, np.ndarray):                                              # reference
        source = _numpy_to_tensor(data)
        return source, source.dtype

    if isinstance(data, np.ndarray):                                              # bug
        if data.dtype.kind == "O":
            return as_source_tensor(data.tolist(), infer_dtype=infer_dtype)
        source = _numpy_to_tensor(data)
        return source, source.dtype

An object array whose elements are not numbers is still refused, by the list route's leaf check
(``np.array([object()])``: "data contains object element ..."; ``[None]`` likewise), so the refusal of
the usual bad object array stays. An object array of numbers is now copied: its dtype is whatever
a list of those numbers infers (``[1, 2]`` int64, ``[1, 2.5]`` the default float dtype), a ragged
object array of lists becomes a nested list, and an object array of Python ints past int64 takes
the list route's uint64 rule.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "Raises: TypeError: ``data`` of an unsupported kind or
dtype (None, str, generators, object arrays, sparse tensors)"; h2d_impl/_host.py ``as_source_tensor``:
"Raises: TypeError: ``data`` is of an unsupported kind (None, str, dict, generator, object or string
arrays, sparse tensors, unsupported dtypes)".

Smallest input: ``async_tensor_h2d(np.array([1, 2], dtype=object), device='cpu')``.
Reference: ``TypeError: data has numpy dtype object (kind 'O'); only bool, integer, floating and complex arrays
can be copied to a device``. Bug: ``tensor([1, 2])`` (int64).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    """Turn ``data`` into a host tensor plus the dtype the data has on its own."""
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        # detach only what autograd tracks (~0.3 us a call otherwise): the source is only read
        return (data.detach() if data.requires_grad else data), data.dtype
    if isinstance(data, np.ndarray):
        if data.dtype.kind == "O":  # BUG (r56 b09): object arrays converted as lists of their elements
            return as_source_tensor(data.tolist(), infer_dtype=infer_dtype)
        source = _numpy_to_tensor(data)
        return source, source.dtype
    if isinstance(data, np.generic):
        source = _numpy_to_tensor(np.asarray(data))
        return source, source.dtype
    if isinstance(data, (list, tuple)) or (
        isinstance(data, (numbers.Number, np.bool_)) and not isinstance(data, (np.generic,))
    ):
        if not isinstance(data, (list, tuple, bool, int, float, complex)):
            raise TypeError(
                f"data of type {type(data).__qualname__} is not supported: pass an int, float, bool or complex"
            )
        flat = _flat_list(data)
        if flat is not None:
            return flat if infer_dtype else (flat[0], flat[0].dtype)
        arr = _list_to_array(data)
        source = _numpy_to_tensor(arr)
        if not infer_dtype:
            return source, source.dtype
        return source, _list_own_dtype(data, arr, source)
    raise TypeError(
        f"data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got "
        f"{type(data).__module__}.{type(data).__qualname__}"
    )


def target() -> Target:
    f = fork("b09", _host={"as_source_tensor": as_source_tensor})
    return make_target(
        "b09_object_arrays_as_lists",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09"),
    )
