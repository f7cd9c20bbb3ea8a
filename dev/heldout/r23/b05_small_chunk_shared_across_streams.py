"""b05: the small-payload pool keeps sub-allocating its open chunk when the current stream changes.

Engine pattern: small per-step metadata copies (positions, slot mappings, block tables)
issued from two streams, e.g. the main forward stream and a second stream for
prefill/decode overlap or a drafter. Fault (in ``StagingPool.small_tensor``): the open
chunk is closed only when full (the reference also closes it when the stream key
changes; the edit saves a raw-stream query per small call). Copies queued on stream B
then read slices of a chunk whose ``done`` event is recorded on stream A when it closes;
once A's copies ran the chunk is reused and overwritten while B's copy is still queued
behind B's work. B's result gets data of a later call on A.
Invisible on the host: host targets never stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from h2d_contracts.h2d_impl import _staging

from ._common import PoolRegistry, make_h2d, make_target, make_to_device

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class SharedOpenChunkPool(_staging.StagingPool):
    """The reference pool with one edit in ``small_tensor``."""

    def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:  # a copy of StagingPool.small_tensor
        chunk = self.open
        # FAULT: the reference closes the open chunk also when stream_key() != self.open_key
        if chunk is None or self.open_off + nbytes > self.chunk_bytes:
            if chunk is not None:
                self.open = None
                self.give_back(chunk)
            chunk = self.take()
            self.mark_start(chunk)
            self.open, self.open_key, self.open_off = chunk, self.stream_key(), 0
        start = self.open_off
        self.open_off = start + (nbytes + _staging.ALIGN - 1) // _staging.ALIGN * _staging.ALIGN
        return chunk.tensor(shape, dtype, start)


_POOLS = PoolRegistry(SharedOpenChunkPool)
async_tensor_h2d = make_h2d(make_to_device(pool_for=_POOLS.pool_for))


def target() -> Target:
    return make_target("r23-b05-small-chunk-shared-across-streams", fn=async_tensor_h2d, empty_cache=_POOLS.empty_cache,
                       notes="small pool's open chunk is not closed when the current stream changes")
