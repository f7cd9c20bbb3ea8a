"""GPU only: small-pool slices are packed at 4-byte alignment, so an 8- or 16-byte payload overlaps the slice before it.

"64-byte alignment wastes 60 bytes per one-token call; 4 bytes is every int32's
alignment": the small pool's open chunk hands out slices at multiples of 4 instead of
``ALIGN`` (64). ``_Chunk.tensor`` turns the byte offset into an element offset with
``start // dtype.itemsize``, so a float64/int64/complex slice starting at a byte offset
that is 4 mod 8 begins 4 bytes *earlier*, over the tail of the previous call's slice.
With the stream busy, the previous call's copy has not run yet when the next host copy
overwrites its staging bytes: an earlier result is corrupted. Host targets never stage,
so nothing changes on a CPU-only machine. Scenario: a side stream busy for 50 ms; call A
``async_tensor_h2d([7], device="cuda")``-style with an int32 tensor ``torch.tensor([7],
dtype=torch.int32)`` (bytes 0-4 of the open chunk), then call B ``np.array([1.5])``
(float64, byte offset 4 -> element 0, bytes 0-8); synchronise: A reads 0 (the low word of
1.5), not 7.
"""

from __future__ import annotations

import types

import torch

from h2d_contracts.h2d_impl import _staging, h2d
from h2d_contracts.h2d_impl._staging import StagingPool

from ._common import make_target
from ._patch import entry_points, rebind

ALIGN = 4  # BUG: the reference aligns every slice at 64 bytes (a multiple of every itemsize)


class _Pool(StagingPool):
    def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
        """The reference's ``small_tensor`` with 4-byte slice alignment."""
        key = self.stream_key()
        chunk = self.open
        if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
            if chunk is not None:
                self.open = None
                self.give_back(chunk)
            chunk = self.take()
            self.mark_start(chunk)
            self.open, self.open_key, self.open_off = chunk, key, 0
        start = self.open_off
        self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN
        return chunk.tensor(shape, dtype, start)


#: A small pool of its own beside the reference's (another chunk size, so another key of
#: ``_staging._POOLS``: ``empty_staging_cache`` trims it as it trims the reference's).
_OWN_CHUNK = _staging.SMALL_CHUNK_BYTES - 64


def pool_for(device, chunk_bytes, pin, *, small):
    if not small:
        return _staging.pool_for(device, chunk_bytes, pin, small=False)
    key = (device, _OWN_CHUNK, pin, True)
    pool = _staging._POOLS.get(key)
    if pool is None:
        with _staging._POOLS_LOCK:
            pool = _staging._POOLS.get(key) or _staging._POOLS.setdefault(
                key, _Pool(device, _OWN_CHUNK, pin=pin, small=True, max_retained=_staging.SMALL_MAX_RETAINED_BYTES)
            )
    return pool


_staging_ns = types.SimpleNamespace(**{**vars(_staging), "pool_for": pool_for})


def target():
    fn, _ = entry_points(to_device=rebind(h2d._to_device, _staging=_staging_ns))
    return make_target("b21-small-slices-align4", fn=fn, notes="GPU only")
