"""A CUDA tensor as ``data`` is brought to the host and accepted.

What changed: ``_host.as_source_tensor`` refused any tensor not in host memory
(``ValueError: data must be a host (CPU) tensor``). The change accepts CUDA tensors by
copying them to the host first (``data = data.cpu()``): "some call sites already hold the
values on the GPU (sampling parameters uploaded once); don't make them special-case".

Why an engineer writes it: it turns a refusal into something that works and returns the
right values, and a meta or other non-CUDA tensor is still refused.

Promise broken: ``async_tensor_h2d``'s Raises ("ValueError: ... ``data`` not in host
memory") and contracts "bad-input" (``device-tensor-data``: ValueError naming ``data``). The
hidden ``.cpu()`` is a synchronous device-to-host copy: it waits for all queued work on
the stream (the helper's whole point is never to block the host), and a device-to-device
copy goes through the host twice. GPU only: without CUDA there are no CUDA tensors, and
a meta tensor is still refused.

Smallest input (CUDA): ``async_tensor_h2d(torch.tensor([1], device="cuda"),
device="cuda")``: reference ``ValueError: data must be a host (CPU) tensor``; bug returns
``tensor([1], device='cuda:0')`` (after synchronising the stream).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if data.is_cuda:
            data = data.cpu()  # BUG: device tensors are brought to the host instead of refused
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:  # noqa: F821
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        return (data.detach() if data.requires_grad else data), data.dtype
    if isinstance(data, np.ndarray):
        source = _numpy_to_tensor(data)  # noqa: F821
        return source, source.dtype
    if isinstance(data, np.generic):
        source = _numpy_to_tensor(np.asarray(data))  # noqa: F821
        return source, source.dtype
    if isinstance(data, (list, tuple)) or (
        isinstance(data, (numbers.Number, np.bool_)) and not isinstance(data, (np.generic,))
    ):
        if not isinstance(data, (list, tuple, bool, int, float, complex)):
            raise TypeError(
                f"data of type {type(data).__qualname__} is not supported: pass an int, float, bool or complex"
            )
        flat = _flat_list(data)  # noqa: F821
        if flat is not None:
            return flat if infer_dtype else (flat[0], flat[0].dtype)
        arr = _list_to_array(data)  # noqa: F821
        source = _numpy_to_tensor(arr)  # noqa: F821
        if not infer_dtype:
            return source, source.dtype
        if _has_typed_leaf(data):  # noqa: F821
            try:
                with warnings.catch_warnings():
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
    return fork_target("b26_cuda_data_accepted", fork("b26", _host={"as_source_tensor": as_source_tensor}))
