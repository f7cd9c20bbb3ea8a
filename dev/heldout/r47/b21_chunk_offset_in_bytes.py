"""b21 chunk_offset_in_bytes (GPU only) -- ``_staging._Chunk.tensor``.

What changed: the slice's start, a byte offset into the chunk, is given to ``as_strided``
as an element offset::

    typed.as_strided(shape, _contiguous_strides(shape), start // dtype.itemsize)   # reference
    typed.as_strided(shape, _contiguous_strides(shape), start)                     # bug

Realistic: unit slip (the offset "of the slice" taken for the typed view's offset); for
uint8/bool payloads, and for the first slice of every chunk (start 0, every large-payload
block), nothing changes. (Plumbing: the pool's ``_alloc`` is rebound to make this chunk.)

Effect: slices of an itemsize-k dtype start k times too far into the chunk: past the
chunk, ``as_strided`` raises ``RuntimeError``; inside it, they land on bytes the pool has
handed or will hand to other calls (a later uint8 slice at that byte offset overwrites a
queued int64 payload before its DMA ran).

Why GPU only: the small pool serves CUDA targets alone; on a CPU-only host public calls
never reach it (repro.py runs the same calls on bug and control).

Promise broken (reference.md "Up to 256 KiB (SMALL_MAX_BYTES): a 64-byte-aligned slice of
the small pool's open 1 MiB chunk"; README ``values``; a valid call raises).

Smallest GPU input: three calls ``async_tensor_h2d(np.ones(51200, np.float32),
device="cuda:0")`` (200 KiB each, one chunk): reference three results of ones; bug: the
third raises ``RuntimeError`` (storage offset 409600 elements past a chunk of 262144).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


def tensor(self, shape, dtype, start=0):
    """A contiguous ``dtype`` tensor of ``shape`` in this chunk, from byte ``start`` (a multiple of the itemsize)."""
    typed = self.views.get(dtype)
    if typed is None:
        whole = self.block.numel() - self.block.numel() % dtype.itemsize
        with torch.inference_mode(False):  # noqa: F821
            typed = self.views[dtype] = self.block[:whole].view(dtype)
    return typed.as_strided(shape, _contiguous_strides(shape), start)  # noqa: F821


class _Chunk(_staging._Chunk):
    pass


_Chunk.tensor = rebind(tensor, _staging)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool._alloc = rebind(_staging.StagingPool._alloc, _staging, _Chunk=_Chunk)


def target() -> Target:
    f = fork("b21", _staging={"StagingPool": StagingPool})
    return make_target(
        "b21_chunk_offset_in_bytes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b21"),
    )
