"""b02 (CPU): ``UvaBackedTensor``\\ s of one spec share one ``UvaBufferPool`` (a memo keyed by shape, dtype and depth).

Where: ``h2d_impl/buffer_utils.py::UvaBackedTensor.__init__`` (every refresh goes through the pool it picks).

Change: a memory saving ("the sampling states make many backed tensors of the same spec (temperature, top_p,
min_p: ``UvaBackedTensor(max_num_reqs, torch.float32)``); each pool pins ``max_concurrency`` slots: share one
pool per spec")::

    self.pool = UvaBufferPool(shape, dtype, max_concurrency)                                   # reference

    depth = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency            # bug
    key = (shape, dtype, depth)
    self.pool = _SHARED_POOLS.get(key)
    if self.pool is None:
        self.pool = _SHARED_POOLS[key] = UvaBufferPool(shape, dtype, max_concurrency)

The round robin of a pool counts calls, not callers: with one pool behind ``k`` tensors, each refresh of one
tensor advances the ring for all of them. A step that refreshes three float32 tensors with the default depth
of 2 writes the third one's rows into the slot the first one's ``.gpu`` views, before any reader of the step
has run; and a tensor's previous view no longer survives its next refresh (``max_concurrency - 1`` refreshes
of *that* tensor) once another tensor of the spec refreshes in between.

Promise broken: h2d_impl/buffer_utils.py ``UvaBackedTensor``: "``.gpu`` is the view of the slot written by the latest
``copy_to_uva``: a reader queued before holds the previous slot's view, valid for ``max_concurrency - 1`` more
refreshes"; docs/contracts.md, pool: "Pools are independent (table ``prop_pools_interleaved``) ... each reader
retired ``max_concurrency`` calls *of its own pool* later, read their own step's data".

Smallest input: ``t, p, m = (UvaBackedTensor(1, torch.float32) for _ in range(3)); t.np[0] = 0.5; p.np[0] = 0.25;
m.np[0] = 0.125; t.copy_to_uva(); p.copy_to_uva(); m.copy_to_uva(); t.gpu``.
Reference: ``tensor([0.5])``. Bug: ``tensor([0.125])`` (m's refresh wrote t's slot).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _shape, _dtype, long_lived, UvaBufferPool, ...; _SHARED_POOLS)


def __init__(self: Any, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    shape, self.dtype = _shape(size), _dtype(dtype)
    with long_lived():  # state kept across steps: normal tensors under inference_mode too
        self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=False)
        self.np = self.cpu.numpy()
        # one pool per spec: sampling states make many backed tensors alike, and each pool pins its slots
        depth = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
        key = (shape, dtype, depth)
        self.pool = _SHARED_POOLS.get(key)  # BUG (r58 b02): one ring shared by every backed tensor of the spec
        if self.pool is None:
            self.pool = _SHARED_POOLS[key] = UvaBufferPool(shape, dtype, max_concurrency)
        self.gpu = self.pool.copy_to_uva(self.np)


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_backed_pools_shared_by_spec",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b02", names={"_SHARED_POOLS": {}}, methods={"UvaBackedTensor": {"__init__": __init__}}
        ),
    )
