"""b09 (CPU): a tensor that requires grad is detached *in place* (``detach_()``), on the caller's object.

The change: in ``_host.as_source_tensor``, ``data.detach() if data.requires_grad else data``
became ``data.detach_() if data.requires_grad else data``.

Why an engineer writes it: ``detach()`` makes a new tensor object on every call (about
0.3 us, the comment says); ``detach_()`` returns the same object, and "the source is only
read" anyway.

What breaks: "``data`` is only read" (docs/reference.md) and the input-untouched contract
(tensors: ``requires_grad`` among the state compared). ``x = torch.tensor([1.0],
requires_grad=True); async_tensor_h2d(x, device="cpu")`` leaves ``x.requires_grad`` False
(and a non-leaf ``x`` cut out of the caller's graph): the caller's backward silently
loses its gradient. A view that requires grad (``x[:1]`` of such a leaf) cannot be detached in
place at all: the valid call then raises torch's ``RuntimeError``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import torch

from ._common import fork, fork_target


def as_source_tensor(data, *, infer_dtype=True):
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        return (data.detach_() if data.requires_grad else data), data.dtype  # BUG: detach_ (in place) on the caller's tensor
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


def target():
    return fork_target("b09-detach-in-place", fork("b09", _host={"as_source_tensor": as_source_tensor}))
