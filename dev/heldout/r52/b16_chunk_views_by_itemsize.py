"""b16 (GPU-only): a staging chunk caches its typed views by element size, so float32 staging reuses an int32 view.

Where: ``h2d_impl/_staging.py::_Chunk.tensor`` (the per-dtype view cache of every pinned staging
chunk and block; ``async_tensor_h2d``'s CUDA path, and through it ``StagedWriteTensor.apply_write``
and ``FusedStagedWriter.apply`` on CUDA, wired here to this fork's ``async_tensor_h2d``).

Change (the cache key: "a view only reinterprets bytes, so it depends on the element size")::

    typed = self.views.get(dtype)                              # reference
    ...         typed = self.views[dtype] = self.block[:whole].view(dtype)
    typed = self.views.get(dtype.itemsize)                     # bug
    ...         typed = self.views[dtype.itemsize] = self.block[:whole].view(dtype)

The first dtype staged in a chunk fixes the view for every dtype of its size: after an int32
call, a float32 call staged in the same chunk gets an int32 staging tensor: its values are
converted to int32 (truncated) and the result comes back as an int32 tensor (likewise int64 and
float64, float16/bfloat16/int16, uint8/int8/bool). Staging pools serve CUDA targets only
(``_to_device``, ``_fast_path``; a ``cpu`` target is copied by ``_stage`` without a pool), so
on a CPU-only host behaviour is identical.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "Returns: ... a new contiguous
tensor of shape ``S`` and the resolved dtype on ``device``" (``dtype=`` wins, else the data's own);
h2d_impl/_staging.py ``_Chunk.tensor``: "A contiguous ``dtype`` tensor of ``shape`` in this chunk".

Smallest input (CUDA, a fresh process or target): ``async_tensor_h2d([1], dtype=torch.int32, device='cuda');
async_tensor_h2d([1.5], device='cuda')``.
Reference: ``tensor([1.5000], device='cuda:0')`` (float32).
Bug: ``tensor([1], device='cuda:0', dtype=torch.int32)``. (A float32 ``StagedWriteTensor``'s apply after
an int32 one: ``RuntimeError`` from ``index_copy_``, dtypes differ.)
CPU-only host: ``async_tensor_h2d([1], dtype=torch.int32, device='cpu'); async_tensor_h2d([1.5], device='cpu')``
gives ``tensor([1.5000])`` for both.
"""

from __future__ import annotations

import functools

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import buffer_utils as _bu


class _Chunk(_staging._Chunk):
    __slots__ = ()

    def tensor(self, shape: torch.Size, dtype: torch.dtype, start: int = 0) -> torch.Tensor:
        typed = self.views.get(dtype.itemsize)  # BUG (r52 b16): keyed by element size, not dtype
        if typed is None:
            whole = self.block.numel() - self.block.numel() % dtype.itemsize
            with torch.inference_mode(False):
                typed = self.views[dtype.itemsize] = self.block[:whole].view(dtype)  # BUG (r52 b16)
        return typed.as_strided(shape, _staging._contiguous_strides(shape), start // dtype.itemsize)


# StagingPool is a class (not copied by fork): its reference _alloc, unchanged, rebound to make the chunk above
_StagingPool = type(
    "StagingPool",
    (_staging.StagingPool,),
    {"__module__": __name__, "_alloc": rebind(_staging.StagingPool._alloc, _staging, _Chunk=_Chunk)},
)


def target() -> Target:
    f = fork("b16", _staging={"_Chunk": _Chunk, "StagingPool": _StagingPool})
    # the Model Runner V2 classes convert and index through this fork's async_tensor_h2d (a partial: bound as it is)
    bu_names = {
        "async_tensor_h2d": functools.partial(f.h2d.async_tensor_h2d),
        "_converted": _bu._converted,
        "_write": _bu._write,
    }
    return make_target(
        "b16_chunk_views_by_itemsize",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", names=bu_names),
    )
