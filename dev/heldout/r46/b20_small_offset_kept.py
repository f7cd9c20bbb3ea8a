"""b20 (GPU-only): a new small-pool chunk starts at the previous chunk's offset.

Where: ``_staging.StagingPool.small_tensor``. When the open chunk is full (or the stream
changed) the reference takes a new chunk and resets the cursor:
``self.open, self.open_key, self.open_off = chunk, key, 0``. The bug sets the chunk and the
key only (``self.open, self.open_key = chunk, key``; a refactor that split the tuple
assignment), so the new chunk's first slice starts where the old chunk ended.

Why realistic: invisible in every short test (the first chunk of a process starts at 0 and
lasts 16,384 small calls or four 256 KiB ones); after a stream switch the slices merely
waste space. Once a chunk fills, the next slice starts at or past the chunk's end:
``as_strided`` refuses it, and from then on every small call of the process raises.

On a CPU-only host the pools are never used: every call behaves as the control. On one
CUDA GPU: ``for i in range(5): async_tensor_h2d(np.full(65536, i, np.int32),
device="cuda:0")`` (four 256 KiB slices fill the first 1 MiB chunk): the reference returns
five results; the bug's fifth call raises ``RuntimeError: setStorage: ... out of bounds for
storage of size 1048576`` (and so does every later call of at most 256 KiB).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging as _ref_staging
from plumbing import bu_fork, fork, make_target, rebind


def small_tensor(self, shape, dtype, nbytes):
    """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk."""
    key = self.stream_key()
    chunk = self.open
    if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
        if chunk is not None:
            self.open = None
            self.give_back(chunk)
        chunk = self.take()
        self.mark_start(chunk)
        self.open, self.open_key = chunk, key  # BUG: was `self.open, self.open_key, self.open_off = chunk, key, 0`
    start = self.open_off
    self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN
    return chunk.tensor(shape, dtype, start)


class StagingPool(_ref_staging.StagingPool):
    __doc__ = _ref_staging.StagingPool.__doc__
    small_tensor = rebind(small_tensor, _ref_staging)


def target() -> Target:
    f = fork("b20", _staging={"StagingPool": StagingPool})
    return make_target(
        "b20_small_offset_kept",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b20"),
    )
