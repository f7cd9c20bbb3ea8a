"""b07 (CPU): a tensor that requires grad "detached" in place with ``requires_grad_(False)``: the caller's tensor is changed.

Where: ``h2d_impl/_host.py::as_source_tensor``, the tensor branch.

Change (one line)::

    return (data.detach() if data.requires_grad else data), data.dtype               # reference
    return (data.requires_grad_(False) if data.requires_grad else data), data.dtype  # bug: "cheaper than a new detached view"

The caller's leaf tensor (a parameter, an embedding) leaves the call with
``requires_grad=False``: its later use is silently cut out of autograd. A non-leaf tensor
that requires grad (``x * 2``) makes the call raise ``RuntimeError`` ("you can only change
requires_grad flags of leaf variables"), a valid input refused with an undocumented type.

Promise broken: docs/contracts.md, input-untouched: "The caller's `data` is bit-identical
after every call ...: tensors (dtype, shape, strides, offset, pinned-ness, `requires_grad`,
every byte of the storage)"; docs/reference.md: "**`data` is only read**: never padded,
rewritten or byte-swapped in place"; h2d_impl/_host.py ``as_source_tensor`` docstring:
"``source`` is a CPU tensor that may alias ``data`` and must only be read".

Smallest input: ``x = torch.tensor([1.5], requires_grad=True); async_tensor_h2d(x, device='cpu'); x.requires_grad``.
Reference: ``True`` (result ``tensor([1.5])``). Bug: ``False``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    """Turn ``data`` into a host tensor plus the dtype the data has on its own.

    ``infer_dtype=False`` (the caller already knows the target dtype) skips the scan of
    list leaves for numpy scalars / tensors, which only matters for the inferred dtype;
    the second value is then ``source.dtype``.

    Args:
        data: a (nested) ``list``/``tuple`` of bool/int/float/complex, a Python or numpy
            scalar, a ``numpy.ndarray`` of a bool/integer/floating/complex dtype in any
            layout (negative strides, non-native byte order and read-only included), or
            a CPU ``torch.Tensor`` with the strided layout (any strides, pinned or not).

    Returns:
        ``(source, own_dtype)``: ``source`` is a CPU tensor that may alias ``data`` and
        must only be read; ``own_dtype`` follows ``torch.tensor``'s inference for lists
        (bool -> torch.bool, int -> torch.int64, float -> the default dtype, complex ->
        the default complex dtype; numpy scalars, ndarrays and tensors inside a list keep
        their dtype as ``torch.tensor(data)`` does: ``[np.array([1.5], np.float64)]`` is
        float64, a list of int32 arrays int32; where ``torch.tensor`` refuses such a
        list, numpy's dtype for it) and the array's or tensor's own dtype otherwise.

    Raises:
        TypeError: ``data`` is of an unsupported kind (None, str, dict, generator, object
            or string arrays, sparse tensors, unsupported dtypes).
        ValueError: ragged nesting; a tensor that is not in host memory; integers out of
            the int64/uint64 range in a list.
    """
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        # detach only what autograd tracks (~0.3 us a call otherwise): the source is only read
        return (data.requires_grad_(False) if data.requires_grad else data), data.dtype  # BUG (r48 b07)
    if isinstance(data, np.ndarray):
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
    f = fork("b07", _host={"as_source_tensor": as_source_tensor})
    return make_target(
        "b07_detached_in_place",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
