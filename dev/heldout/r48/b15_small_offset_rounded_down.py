"""b15 (GPU-only): the small pool's next-slice offset rounded *down* to the 64-byte alignment instead of up.

Where: ``h2d_impl/_staging.py::StagingPool.small_tensor`` (payloads of at most 256 KiB to a
CUDA device; a host target never reaches the staging pools).

Change (one line)::

    self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN   # reference: ceil to 64 bytes
    self.open_off = start + nbytes // ALIGN * ALIGN                 # bug: floor

A payload under 64 bytes (every list of up to 7 int64 token ids, 15 int32 positions) does
not advance the offset at all: the next small call is staged into the same bytes. Others
leave their last ``nbytes % 64`` bytes under the next slice. The host copy of the next call
then overwrites a slice whose non-blocking DMA is still queued behind other work, and the
earlier result receives the later call's values. On an idle stream the DMA usually runs
first, so only queued copies show it.

Promise broken: docs/reference.md, "On CUDA data is staged (converted on the host into pinned
memory) and copied with `non_blocking=True` ...: the source may be overwritten as soon as the
call returns" and "Up to 256 KiB (`SMALL_MAX_BYTES`): a 64-byte-aligned slice of the small
pool's open 1 MiB chunk"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "The source may be
overwritten as soon as the call returns (the copy reads the staging, a snapshot)";
docs/contracts.md, snapshot: "two calls queued back to back, the second with other values,
both land".

On a CPU-only host every public call behaves as the control's (``device='cpu'`` is staged by
``_stage``, no pool is ever made).

GPU input: ``torch.cuda._sleep(10**8); a = async_tensor_h2d([1, 2], device='cuda');
b = async_tensor_h2d([3, 4], device='cuda'); torch.cuda.synchronize(); a``.
Reference: ``a == [1, 2]``. Bug: ``a == [3, 4]`` (both slices at offset 0 of the chunk).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind

def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
    """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk.

    The caller holds :attr:`lock` until the copy reading it is queued. The slice starts
    at a multiple of :data:`ALIGN`; it is made with one ``as_strided`` of a per-dtype
    view of the chunk (``block[a:b].view(dtype).view(shape)`` cost 3.5 us on the CPU
    machine, ``as_strided`` 1.1 us).
    """
    key = self.stream_key()
    chunk = self.open
    if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
        if chunk is not None:
            self.open = None  # closed before the next take, which may raise (no second give_back)
            self.give_back(chunk)
        chunk = self.take()
        self.mark_start(chunk)  # a small pool never waits on its start: before the host copy is fine
        self.open, self.open_key, self.open_off = chunk, key, 0
    start = self.open_off
    self.open_off = start + nbytes // ALIGN * ALIGN  # BUG (r48 b15): rounded down, not up
    return chunk.tensor(shape, dtype, start)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__
    small_tensor = rebind(small_tensor, _staging)


def target() -> Target:
    f = fork("b15", _staging={"StagingPool": StagingPool})
    return make_target(
        "b15_small_offset_rounded_down",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
