"""b09 (CPU): a list whose target dtype is known (``dtype=`` or ``out.dtype``) is built by numpy straight in that dtype.

Where: ``h2d_impl/h2d.py::_prepare`` (both entry points; lists and tuples with ``dtype=`` or ``out=``).

Change: one conversion instead of two ("with the dtype known, build the array in it, as ``torch.tensor(data,
dtype=...)`` does: no int64/float64 temporary, no second pass to convert it, and the range check has nothing left
to do")::

    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)                       # reference

    np_dtype = _NP_OF.get(dtype)                                                                # bug
    if np_dtype is not None and type(data) in (list, tuple):
        source, own_dtype = torch.from_numpy(np.asarray(data, dtype=np_dtype)), dtype
    else:
        source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)

For lists of numbers in range the values are the reference's. But ``np.asarray(data, dtype=...)`` is a
conversion, not a check: it parses strings (``['1', '2']`` becomes ``[1, 2]``), calls ``float()`` and ``int()`` on
anything that has them (``Decimal``, ``Fraction``; ``None`` becomes NaN in a float dtype), and reports an int
past the dtype as ``OverflowError``, not the ``ValueError`` naming ``data`` that the list route raises. The
leaf checks of ``as_source_tensor`` never run for such a call.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "Raises: TypeError: ``data`` of an unsupported kind or dtype (None,
str, generators, object arrays, sparse tensors) ... ValueError: ... NaN/inf or out-of-range values for an integer
dtype"; h2d_impl/_host.py ``as_source_tensor``: "data: a (nested) ``list``/``tuple`` of bool/int/float/complex";
docs/reference.md: "**Errors**: ``TypeError`` (wrong kind), ``ValueError`` (wrong value) ... naming the argument".

Smallest input: ``async_tensor_h2d(['1', '2'], dtype=torch.int32, device='cpu')``.
Reference: ``TypeError: data contains elements of kind <U1 (strings, bytes or dates); only bool, int, float and complex
elements are accepted: ['1', '2']``. Bug: ``tensor([1, 2], dtype=torch.int32)`` (and ``[2**40]`` into int32:
``ValueError: data[0] = 1099511627776 is out of range ...`` against ``OverflowError: Python integer 1099511627776 out of
bounds for int32``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, _check_out, _resolve_device, as_source_tensor, ...)

#: torch dtype -> numpy dtype, for the dtypes numpy has (bound into the fork's h2d as ``_NP_OF``).
NP_OF = {
    torch.bool: np.dtype(np.bool_),
    torch.uint8: np.dtype(np.uint8),
    torch.int8: np.dtype(np.int8),
    torch.int16: np.dtype(np.int16),
    torch.int32: np.dtype(np.int32),
    torch.int64: np.dtype(np.int64),
    torch.uint16: np.dtype(np.uint16),
    torch.uint32: np.dtype(np.uint32),
    torch.uint64: np.dtype(np.uint64),
    torch.float16: np.dtype(np.float16),
    torch.float32: np.dtype(np.float32),
    torch.float64: np.dtype(np.float64),
    torch.complex64: np.dtype(np.complex64),
    torch.complex128: np.dtype(np.complex128),
}


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]
    if out is not None:
        out_device = out.device
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        where = f"device={target}" if out is None else f"out.device={target}"
        raise ValueError(f"the CPU-platform variant only targets host memory, got {where}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    # a list with its target dtype known: built by numpy straight in it, as torch.tensor(data, dtype=...) does
    np_dtype = _NP_OF.get(dtype)
    if np_dtype is not None and type(data) in (list, tuple):
        source, own_dtype = torch.from_numpy(np.asarray(data, dtype=np_dtype)), dtype  # BUG (r57 b09): no leaf checks
    else:
        source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)
    if dtype is not source.dtype and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    f = fork("b09", h2d={"_prepare": _prepare, "_NP_OF": NP_OF})
    return make_target(
        "b09_lists_built_in_target_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09"),
    )
