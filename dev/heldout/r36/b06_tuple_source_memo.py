"""Tuples are memoised by value: ``(1,)``, ``(1.0,)`` and ``(True,)`` share one conversion.

What changed: ``_host.as_source_tensor`` converted every call's data. The change puts a
``functools.lru_cache`` in front of it for hashable tuples: "tuples are immutable, so
their host tensor can be reused; engines pass the same position/shape tuples every step".

Why an engineer writes it: immutability makes the memo look obviously safe, and the
source tensor is only read (every result is still a fresh copy of it).

Promise broken: contracts "values" (lists and tuples follow ``torch.tensor``'s dtype
inference; signed zeros must survive, ``-0.0`` is not ``0.0``) and "sequence" (every
result matches its own call's data). Python's equality conflates ``1 == 1.0 == True``
and ``0.0 == -0.0`` and so does the cache key: after ``(1,)``, the tuple ``(1.0,)`` comes
back as int64; after ``(0.0,)``, ``(-0.0,)`` comes back as ``+0.0``.

Smallest input: ``async_tensor_h2d((1,), device="cpu")`` then
``async_tensor_h2d((1.0,), device="cpu")``: reference float32 ``tensor([1.])``; bug int64
``tensor([1])``.
"""

from __future__ import annotations

import functools
from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host

from ._common import Raw, fork, fork_target


def _make(uncached: Any) -> Any:
    @functools.lru_cache(maxsize=256)
    def _tuple_source(data: tuple, infer_dtype: bool) -> tuple[torch.Tensor, torch.dtype]:
        return uncached(data, infer_dtype=infer_dtype)

    def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
        # BUG: immutable tuples are converted once and memoised by value (1 == 1.0 == True, 0.0 == -0.0)
        if type(data) is tuple:
            try:
                hash(data)
            except TypeError:  # lists inside: not memoisable
                pass
            else:
                return _tuple_source(data, infer_dtype)
        return uncached(data, infer_dtype=infer_dtype)

    return as_source_tensor


def target() -> Target:
    return fork_target(
        "b06_tuple_source_memo", fork("b06", _host={"as_source_tensor": Raw(_make(_host.as_source_tensor))})
    )
