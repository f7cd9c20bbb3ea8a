"""b23 (GPU-only, _staging.py ``_Chunk.tensor``): a chunk's cached typed views are keyed by the dtype's item size, not the dtype: the first 4-byte dtype staged in a chunk (int32) serves every later 4-byte dtype (float32), so a float32 call is staged as int32: truncated values and an int32 result.

What changed: ``typed = self.views.get(dtype)`` / ``self.views[dtype] = ...`` became
``self.views.get(dtype.itemsize)`` / ``self.views[dtype.itemsize] = ...``.

Why an engineer would write it: the cache exists because ``block[:whole].view(dtype)``
costs about a microsecond, and the views of one chunk "only differ by element width"
(the ``whole`` computed for them depends on the item size alone); keying by width keeps
the dictionary at four entries. The cached view carries its dtype, though, and
``as_strided`` returns a tensor of *that* dtype.

Promise broken: ``async_tensor_h2d`` docstring: "Returns: ... a new contiguous tensor of
shape ``S`` and the resolved dtype" and "staged into pinned chunks of the per-device
staging pool (converted to the target dtype on the host)"; docs/contracts.md values: "The
result equals ``data`` converted to the resolved dtype: same shape and dtype, and the
same bits".

Smallest input (one GPU, a fresh process or right after ``empty_staging_cache()``):
``async_tensor_h2d([1, 2], dtype=torch.int32, device='cuda')``, then
``async_tensor_h2d([1.5, 2.5], dtype=torch.float32, device='cuda')`` (both small calls
share the small pool's open 1 MiB chunk). With ``out=torch.empty(2, device='cuda')`` the
dtype is right and the values are truncated.

Reference result: ``tensor([1.5000, 2.5000], device='cuda:0')`` (float32).
Bug result: ``tensor([1, 2], device='cuda:0', dtype=torch.int32)``; with the float32
``out``: ``[1.0, 2.0]``.
On a CPU-only host no pool (so no chunk) is ever made; ``gpu_sim.py`` shows the chunk's
view on the host.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Raw, buffer_utils_ns, fork, make_target, rebind


class _Chunk(_staging._Chunk):
    __slots__ = ()

    def tensor(self, shape: torch.Size, dtype: torch.dtype, start: int = 0) -> torch.Tensor:
        """A contiguous ``dtype`` tensor of ``shape`` in this chunk, from byte ``start`` (a multiple of the itemsize)."""
        typed = self.views.get(dtype.itemsize)  # BUG: keyed by item size (was: by dtype)
        if typed is None:
            whole = self.block.numel() - self.block.numel() % dtype.itemsize  # tests use odd chunk sizes
            with torch.inference_mode(False):  # kept across calls: never a view made in inference mode
                typed = self.views[dtype.itemsize] = self.block[:whole].view(dtype)  # BUG: keyed by item size
        return typed.as_strided(shape, _contiguous_strides(shape), start // dtype.itemsize)


_Chunk.tensor = rebind(_Chunk.tensor, _staging)  # type: ignore[method-assign]


class StagingPool(_staging.StagingPool):
    """The reference pool; its ``_alloc`` (the reference's code) makes the ``_Chunk`` above."""


StagingPool._alloc = rebind(_staging.StagingPool._alloc, _staging, _Chunk=_Chunk)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b23", _staging={"StagingPool": Raw(StagingPool)})
    return make_target(
        "b23_chunk_view_by_itemsize",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
