"""ndarrays are recognised by ``type(data) is np.ndarray``: subclasses (np.memmap) are refused.

What changed: ``_host.as_source_tensor`` tested ``isinstance(data, np.ndarray)``. The
change tests ``type(data) is np.ndarray``, "an exact type test is cheaper than isinstance
on the hot path, and arrays are never subclassed here".

Why an engineer writes it: exact type tests are a common micro-optimisation of dispatch
code (the module already uses ``type(data) in (list, tuple)`` in ``_flat_list``).

Promise broken: docs/reference.md "Inputs: ... ndarrays in any layout", the docstring's
"a numpy.ndarray ... in any layout (..., read-only)": ``np.memmap`` (what
``np.load(path, mmap_mode="r")`` returns, how engines map token tables and embeddings)
and every other ndarray subclass is an ndarray, and now raises ``TypeError: data must be
a list, tuple, numpy.ndarray, CPU torch.Tensor or number``.

Smallest input: ``async_tensor_h2d(np.arange(3).view(np.memmap), device="cpu")`` (or a
memmap of a file): reference ``tensor([0, 1, 2])``; bug ``TypeError``.
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
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:  # noqa: F821
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        return (data.detach() if data.requires_grad else data), data.dtype
    if type(data) is np.ndarray:  # BUG: exact type test (was: isinstance(data, np.ndarray))
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
    return fork_target("b05_ndarray_exact_type", fork("b05", _host={"as_source_tensor": as_source_tensor}))
