"""b20 (CPU): a sparse COO data tensor is densified instead of refused.

The change: in ``_host.as_source_tensor``, a line ``if data.is_sparse: data = data.to_dense()``
was added before the layout check.

Why an engineer writes it: some samplers build their masks and penalty tensors as sparse
COO tensors; "a copy to the device is dense anyway", so accepting them saves each caller a
``to_dense()``.

What breaks: "TypeError: data of an unsupported kind ... sparse tensors"
(``async_tensor_h2d``'s docstring; bad-input kind ``sparse-data``, docs/contracts.md):
``async_tensor_h2d(torch.sparse_coo_tensor([[0]], [1.0], (2,)), device="cpu")`` returns
``tensor([1., 0.])`` instead of raising ``TypeError``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import torch

from ._common import fork, fork_target


def as_source_tensor(data, *, infer_dtype=True):
    if isinstance(data, torch.Tensor):
        if data.is_sparse:
            data = data.to_dense()  # BUG: sparse COO data accepted ("dense on the device anyway")
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
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
    return fork_target("b20-sparse-densified", fork("b20", _host={"as_source_tensor": as_source_tensor}))
