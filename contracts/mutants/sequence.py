"""Mutants whose bug shows only when the same host object is uploaded again: killed by the ``sequence`` contract.

Each is the reference with one cache, memo or reuse an engine developer adds to save a
copy on the step loop; every single call is right.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target


@mutant(killed_by=("sequence",))
def tensor_upload_memo_by_version() -> Target:
    """uploads of a host tensor are memoised by (object, version counter, shape, dtype, device): a refill through a numpy view does not bump the version, so the stale result comes back."""
    memo: dict[Any, tuple[Any, torch.Tensor]] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and out is None:
            key = (id(data), data._version, tuple(data.shape), data.dtype, dtype, str(device))
            hit = memo.get(key)
            if hit is not None and hit[0]() is data:
                return hit[1].clone()
            result = R.async_tensor_h2d(data, device, dtype, out)
            memo[key] = (weakref.ref(data), result)
            return result
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("tensor_upload_memo_by_version", fn)


@mutant(killed_by=("sequence",))
def ndarray_results_from_a_pool() -> Target:
    """ndarray uploads without ``out`` are written into one persistent device tensor per (shape, dtype, device) and that tensor is returned: the next upload of that shape overwrites every earlier result."""
    pool: dict[Any, torch.Tensor] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and out is None and device is not None:
            fresh = R.async_tensor_h2d(data, device, dtype, None)
            key = (tuple(fresh.shape), fresh.dtype, str(fresh.device))
            slot = pool.get(key)
            if slot is None:
                slot = pool[key] = torch.empty_like(fresh)
            return slot.copy_(fresh)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("ndarray_results_from_a_pool", fn)


@mutant(killed_by=("sequence",))
def list_upload_cached_by_length_and_ends() -> Target:
    """flat list uploads are cached by (length, first and last element, dtype, device): a list refilled in the middle is uploaded stale."""
    cache: dict[Any, torch.Tensor] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, list) and data and out is None and not isinstance(data[0], list):
            key = (len(data), data[0], data[-1], type(data[0]), dtype, str(device))
            if key in cache:
                return cache[key].clone()
            result = cache[key] = R.async_tensor_h2d(data, device, dtype, out)
            return result.clone()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("list_upload_cached_by_length_and_ends", fn)


@mutant(killed_by=("sequence",))
def buffer_copy_skipped_when_first_row_unchanged() -> Target:
    """``copy_to_gpu(n)`` skips the copy when ``n`` and row 0 of ``.cpu`` are as at the last copy ("nothing changed"): a refill of the other rows never reaches ``.gpu``."""

    class B(ReferenceBuffer):
        def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
            key = (n, self.cpu[:1].clone())
            last = getattr(self, "_last", None)
            if last is not None and last[0] == n and torch.equal(last[1], key[1]):
                return self.gpu if n is None else self.gpu[:n]
            self._last = key
            return super().copy_to_gpu(n)

    return reference_target("buffer_copy_skipped_when_first_row_unchanged", buffer_cls=B)


@mutant(killed_by=("sequence",))
def out_shape_checked_on_first_use_only() -> Target:
    """an ``out`` is validated the first time it is seen; later calls with that out copy straight into it, so data of a broadcastable shape is broadcast."""
    seen: weakref.WeakSet[torch.Tensor] = weakref.WeakSet()

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and out in seen:
            source = R.async_tensor_h2d(data, "cpu", out.dtype, None)
            return out.copy_(source)
        result = R.async_tensor_h2d(data, device, dtype, out)
        if out is not None:
            seen.add(out)
        return result

    return reference_target("out_shape_checked_on_first_use_only", fn)
