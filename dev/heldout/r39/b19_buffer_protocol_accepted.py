"""b19 (CPU-visible, _host.py ``as_source_tensor``): any object with the buffer protocol is accepted through ``memoryview`` + ``np.asarray``: ``bytes``, ``bytearray`` and ``memoryview`` data are copied as uint8 instead of refused with TypeError.

What changed: before the final ``TypeError`` of ``as_source_tensor``, a fallback
``memoryview(data)`` -> ``_numpy_to_tensor(np.asarray(view))`` was added.

Why an engineer would write it: engines hand over ``array.array`` token buffers,
``mmap``'d files and ``memoryview``s of shared memory; numpy views all of them without a
copy, so "accept the buffer protocol" is a one-line widening that looks safe (the result
is still validated and copied). It also swallows ``bytes`` and ``bytearray``: ``b"123"``
becomes the three bytes ``[49, 50, 51]``, a typical mistake (an encoded string passed
where token ids were meant) that now goes through silently.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "TypeError: ``data`` of an
unsupported kind or dtype (None, str, generators, object arrays, sparse tensors)" and
the accepted kinds listed under ``data``; ``as_source_tensor`` docstring, Raises:
"TypeError: ``data`` is of an unsupported kind"; docs/contracts.md bad-input kind
``bytes``: ``async_tensor_h2d(b'123', out=...)`` must raise ``TypeError``.

Smallest input: ``async_tensor_h2d(b'123', device='cpu')`` (also
``bytearray(b'\x01')``, ``memoryview(b'12')``; with ``out=torch.tensor([77, 77, 77],
dtype=torch.int32)``: ``out`` is written).

Reference result: ``TypeError: data must be a list, tuple, numpy.ndarray, CPU
torch.Tensor or number, got builtins.bytes``.
Bug result: ``tensor([49, 50, 51], dtype=torch.uint8)``; with the int32 ``out``: ``out``
becomes ``[49, 50, 51]``.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    """Turn ``data`` into a host tensor plus the dtype the data has on its own (reference docstring abridged)."""
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
        if _has_typed_leaf(data):
            try:
                with warnings.catch_warnings():  # "Creating a tensor from a list of numpy.ndarrays is extremely slow"
                    warnings.simplefilter("ignore", UserWarning)
                    return source, torch.tensor(data).dtype
            except (TypeError, ValueError, RuntimeError, OverflowError):
                return source, source.dtype
        kind = arr.dtype.kind
        if kind == "b":
            own = torch.bool
        elif kind in "iu":
            own = torch.int64
        elif kind == "f":
            own = torch.get_default_dtype()
        else:
            own = torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64
        return source, own
    # BUG: added: "accept anything exposing the buffer protocol (array.array, memoryview, mmap) as numpy sees it";
    # bytes and bytearray expose it too, and are refused by the contract
    try:
        view = memoryview(data)
    except TypeError:
        pass
    else:
        source = _numpy_to_tensor(np.asarray(view))
        return source, source.dtype
    raise TypeError(
        f"data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got "
        f"{type(data).__module__}.{type(data).__qualname__}"
    )


def target() -> Target:
    f = fork("b19", _host={"as_source_tensor": as_source_tensor})
    return make_target(
        "b19_buffer_protocol_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
