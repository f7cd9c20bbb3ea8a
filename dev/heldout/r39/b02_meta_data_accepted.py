"""b02 (CPU-visible, _host.py ``as_source_tensor``): a tensor that is neither on the host nor on CUDA (``meta``) is no longer refused with ValueError; the copy then fails with NotImplementedError.

What changed: the host-memory test of tensor data ``if not data.is_cpu:`` became
``if data.is_cuda:``.

Why an engineer would write it: the refusal exists for device tensors handed in by
mistake, and on a serving host "device" means CUDA; ``is_cuda`` reads as the precise
test and mirrors the message ("must be a host tensor, got data.device=cuda:0"). A
tensor on ``meta`` (engines build models and buffers under ``torch.device("meta")``
before materialising them) is neither, and slips through to the copy.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "ValueError: ... ``data`` not in
host memory"; ``as_source_tensor`` docstring: "ValueError: ... a tensor that is not in
host memory"; docs/contracts.md bad-input kind ``device-tensor-data`` (a meta tensor as
data) must raise ``ValueError``; docs/reference.md: "Errors: ... never assert, naming the
argument".

Smallest input: ``async_tensor_h2d(torch.empty(1, device='meta'), device='cpu')``
(also with ``out=torch.zeros(1)``).

Reference result: ``ValueError: data must be a host (CPU) tensor, got data.device=meta``.
Bug result: ``NotImplementedError: Cannot copy out of meta tensor; no data!`` (from
torch's ``copy_``; names no argument).
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
        if data.is_cuda:  # BUG: was `if not data.is_cpu:`; meta (and any other non-CUDA device) passes
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
    raise TypeError(
        f"data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got "
        f"{type(data).__module__}.{type(data).__qualname__}"
    )


def target() -> Target:
    f = fork("b02", _host={"as_source_tensor": as_source_tensor})
    return make_target(
        "b02_meta_data_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
