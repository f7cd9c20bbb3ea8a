"""b07 (GPU-only): a staging chunk's cached per-dtype view is made in the caller's mode: made under ``torch.inference_mode()`` it is an inference tensor, and later calls outside the mode cannot write it.

Where: ``h2d_impl/_staging.py::_Chunk.tensor`` (the typed slice every pooled call stages
into); a ``_Chunk`` subclass with that one method changed. Plumbing only: a ``StagingPool``
subclass whose ``_alloc`` is the reference's code, its name ``_Chunk`` bound to the subclass.

Change (the guard on the cached view removed, "the block is already made outside inference
mode by ``_alloc``; a view of it needs no guard")::

    with torch.inference_mode(False):                   # reference
        typed = self.views[dtype] = self.block[:whole].view(dtype)

    typed = self.views[dtype] = self.block[:whole].view(dtype)      # bug

A view made in inference mode is an inference tensor even when its base is not. The view is
kept in ``_Chunk.views`` for the chunk's lifetime, so once a call under
``torch.inference_mode()`` is the first to stage a dtype in a chunk, every later call of that
dtype into that chunk outside the mode raises ``RuntimeError`` ("Inplace update to inference
tensor outside InferenceMode is not allowed") from the host copy, until the chunk is full
(about 16,000 small calls) and the next one is taken, or for good where that chunk is
reused. Large payloads' blocks likewise.

Why it works on a CPU: chunks exist only in the pools, used only for CUDA targets; on a
CPU-only host no pool is ever made.

Promise broken: docs/reference.md (Calling contexts): "`torch.inference_mode()`: the same
values; results made without `out` are inference tensors (made inside the mode)" (and the
calls outside it are valid); h2d_impl/_staging.py, ``_Chunk.tensor``: "kept across calls:
never a view made in inference mode"; docs/contracts.md, values: "A valid call that raises
... fails."

GPU input: ``with torch.inference_mode(): async_tensor_h2d([1], device='cuda:0')``, then
``async_tensor_h2d([2], device='cuda:0')``. Reference: ``tensor([2], device='cuda:0')``. Bug:
``RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


class _Methods:
    # the one changed method, rebound to the reference _staging module's globals below
    def tensor(self, shape: torch.Size, dtype: torch.dtype, start: int = 0) -> torch.Tensor:
        """A contiguous ``dtype`` tensor of ``shape`` in this chunk, from byte ``start`` (a multiple of the itemsize)."""
        typed = self.views.get(dtype)
        if typed is None:
            whole = self.block.numel() - self.block.numel() % dtype.itemsize  # tests use odd chunk sizes
            # BUG (r49 b07): `with torch.inference_mode(False):` dropped ("the block is made outside inference mode
            # already (_alloc); a view of it needs no guard", ~1 us on the first use of each dtype)
            typed = self.views[dtype] = self.block[:whole].view(dtype)
        return typed.as_strided(shape, _contiguous_strides(shape), start // dtype.itemsize)


class _Chunk(_staging._Chunk):
    __slots__ = ()


_Chunk.tensor = rebind(_Methods.tensor, _staging)


class StagingPool(_staging.StagingPool):
    """Plumbing only: the reference pool, its ``_alloc`` (code unchanged) building the ``_Chunk`` above."""


StagingPool._alloc = rebind(_staging.StagingPool._alloc, _staging, _Chunk=_Chunk)


def target() -> Target:
    f = fork("b07", _staging={"StagingPool": StagingPool, "_Chunk": _Chunk})
    return make_target(
        "b07_view_cache_inference_mode",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
