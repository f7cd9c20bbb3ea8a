"""b06 (GPU-only): the small pool's "chunk is full" test ignores the payload: a slice that does not fit in the rest of the open chunk is cut past its end.

Where: ``h2d_impl/_staging.py::StagingPool.small_tensor`` (the slice of the open chunk every
small CUDA call takes); a ``StagingPool`` subclass with that one method changed.

Change (one condition, "the chunk is full once its offset reaches the end")::

    if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:   # reference
    if chunk is None or key != self.open_key or self.open_off >= self.chunk_bytes:          # bug

While the open chunk has any room left, every payload is placed at the current offset,
whether it fits or not. When it does not, ``_Chunk.tensor``'s ``as_strided`` runs past the
1 MiB block and raises ``RuntimeError`` ("setStorage: ... out of bounds for storage of size
1048576") on a valid call. Only calls that fill a chunk unevenly meet it (chunks filled by
equal power-of-two payloads end exactly at 1 MiB).

Why it works on a CPU: the small pool is used only for CUDA targets; on a CPU-only host no
pool is ever made.

Promise broken: h2d_impl/_staging.py module docstring: "the chunk is closed (one event
recorded) when it is full or the current stream changes"; h2d_impl/h2d.py,
``async_tensor_h2d`` docstring: "Payloads up to 256 KiB take a slice of a shared 1 MiB chunk";
docs/contracts.md, values: "A valid call that raises, or returns something that is not a
tensor, fails."

GPU input (a fresh target): ``async_tensor_h2d([1], device='cuda:0')``, then four calls
``async_tensor_h2d(np.zeros(65536, np.float32), device='cuda:0')`` (256 KiB each). Reference:
four float32 zero tensors (the fourth in a new chunk). Bug: the fourth raises
``RuntimeError: setStorage: sizes [65536], strides [1], storage offset 196624, and itemsize 4
requiring a storage size of 1048640 are out of bounds for storage of size 1048576``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


class _Methods:
    # the one changed method, rebound to the reference _staging module's globals below
    def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
        """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk.

        The caller holds :attr:`lock` until the copy reading it is queued. The slice starts
        at a multiple of :data:`ALIGN`; it is made with one ``as_strided`` of a per-dtype
        view of the chunk (``block[a:b].view(dtype).view(shape)`` cost 3.5 us on the CPU
        machine, ``as_strided`` 1.1 us).
        """
        key = self.stream_key()
        chunk = self.open
        # BUG (r49 b06): "full" = the offset reached the end (was: `self.open_off + nbytes > self.chunk_bytes`)
        if chunk is None or key != self.open_key or self.open_off >= self.chunk_bytes:
            if chunk is not None:
                self.open = None  # closed before the next take, which may raise (no second give_back)
                self.give_back(chunk)
            chunk = self.take()
            self.mark_start(chunk)  # a small pool never waits on its start: before the host copy is fine
            self.open, self.open_key, self.open_off = chunk, key, 0
        start = self.open_off
        self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN
        return chunk.tensor(shape, dtype, start)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool.small_tensor = rebind(_Methods.small_tensor, _staging)


def target() -> Target:
    f = fork("b06", _staging={"StagingPool": StagingPool})
    return make_target(
        "b06_small_fit_ignores_payload",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
