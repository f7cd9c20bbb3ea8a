"""b09 (CPU-visible, _host.py ``as_source_tensor``): a list holding numpy scalars, 0-d tensors or arrays gets numpy's dtype instead of ``torch.tensor``'s: ``[np.float32(1.5), 2.5]`` comes back float64, ``[torch.tensor(1.5), 2.5]`` float64.

What changed: in the typed-leaf branch, the dtype ``torch.tensor(data).dtype`` (numpy's
only where torch refuses the list) became numpy's ``source.dtype``, always.

Why an engineer would write it: ``torch.tensor(data)`` rebuilds the whole list only to
read its dtype, and warns that lists of ndarrays are "extremely slow"; numpy has already
built the same list into ``source``, and for the common typed leaves (lists of int32
arrays, a numpy int64 among ints) the two agree. They do not where torch's promotion of
numpy scalars and 0-d tensors with Python numbers differs from numpy's: torch treats a
0-d value of a category as fixing the dtype, numpy promotes to float64.

Promise broken: docs/reference.md "dtype: ... lists follow ``torch.tensor``'s inference
(numpy scalars, 0-d tensors and ndarrays inside them included)"; ``as_source_tensor``
docstring: "numpy scalars, ndarrays and tensors inside a list keep their dtypes as
``torch.tensor(data)`` does: ... ``[np.float32(1.5), 2.5]`` is float32, numpy says
float64"; docs/contracts.md values: "Lists follow ``torch.tensor``'s dtype inference"
(``prop_values_typed_leaves``).

Smallest input: ``async_tensor_h2d([np.float32(1.5), 2.5], device='cpu')`` (also
``[torch.tensor(1.5), 2.5]``).

Reference result: ``tensor([1.5, 2.5])``, dtype ``torch.float32``.
Bug result: the same values, dtype ``torch.float64``.
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
            # BUG: was `torch.tensor(data).dtype` (torch's inference, numpy's dtype only where torch refuses the
            # list); numpy already built the list, so its dtype is taken ("torch.tensor builds it a second time,
            # 'extremely slow' for lists of arrays")
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
    f = fork("b09", _host={"as_source_tensor": as_source_tensor})
    return make_target(
        "b09_typed_leaf_numpy_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
