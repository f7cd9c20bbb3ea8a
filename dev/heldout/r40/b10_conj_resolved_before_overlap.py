"""b10 (CPU-visible): conj/neg views are materialised up front, which hides their aliasing with ``out``.

Where: ``h2d_impl/_host.py``, ``as_source_tensor`` (tensor branch).

Change: ``return (data.detach() if data.requires_grad else data), data.dtype`` ->
``return (data.detach() if data.requires_grad else data).resolve_conj().resolve_neg(), data.dtype``.

Why plausible: the reference special-cases conj and neg bits in four places (the serial
copy's guard, the numpy range check, the bool resolve in ``_prepare``, the zero-copy
test); resolving them once where the source is made looks like a simplification with
the same values. But ``resolve_conj()`` / ``resolve_neg()`` return a *copy* for such a
view, and the overlap check between ``data`` and ``out`` runs on the source: a conj or
neg view of ``out``'s own memory no longer overlaps anything.

Promise broken: ``async_tensor_h2d`` docstring: ``out`` refused when it has "host memory
overlapping ``data``'s bytes" (ValueError); docs/reference.md "``out``: ... not overlapping
``data``'s bytes"; README input-untouched: "the caller's data ... bit-identical after any
call" (here ``data``'s memory is ``out``'s, and it is rewritten).

Smallest input: ``x = torch.tensor([1+2j, 3+4j]); async_tensor_h2d(x.conj(), out=x)``.
Reference: ``ValueError: out shares memory with data; copy data first or pass another out``;
``x`` unchanged.
Bug: returns ``x`` rewritten to ``[1-2j, 3-4j]`` (and the caller's ``data``, the conj view
of ``x``, now reads ``[1+2j, 3+4j]``): nothing was refused, the input was rewritten.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:  # noqa: F821
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        # BUG: conj/neg bits resolved once, here: for such a view that is a copy, which the overlap check
        # against out then no longer sees as data's memory
        return (data.detach() if data.requires_grad else data).resolve_conj().resolve_neg(), data.dtype
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


def _fork() -> Fork:
    return fork("b10", _host={"as_source_tensor": as_source_tensor})


def target() -> Target:
    return fork_target_full("b10_conj_resolved_before_overlap", _fork())
