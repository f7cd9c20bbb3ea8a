"""b27 (GPU-only, _staging.py ``StagingPool.small_tensor``): the "chunk is full" test forgets the payload.

What changed: ``self.open_off + nbytes > self.chunk_bytes`` became
``self.open_off > self.chunk_bytes`` in the test that closes the open chunk.

Why an engineer would write it: "close the chunk once it is used up" reads right, and every
test with payloads much smaller than the 1 MiB chunk passes (the first call past the end
happens only after the chunk is nearly full). A payload that does not fit in the rest of the
chunk is now sliced past its end: ``as_strided`` refuses a view beyond the storage.

Observable (CUDA only: the small pool stages CUDA targets only): six calls of 200 KiB on one
stream, ``for _ in range(6): async_tensor_h2d(np.zeros(51200, np.int32), device="cuda")``.
Reference: six results. Bug: the sixth call (offset 1,024,000 + 204,800 bytes > 1 MiB) raises
``RuntimeError: setStorage: sizes [51200], strides [1], storage offset 256000, and itemsize 4
requiring a storage size of 1228800 are out of bounds for storage of size 1048576``; so does
every later call of that size until the stream changes.

Promise broken: valid calls return their data (docs/reference.md "Up to 256 KiB: a 64-byte-aligned
slice of the small pool's open 1 MiB chunk. The chunk is closed ... when full"; contracts.md
values: sizes across every power of two, sequence/step-loop repeated calls).

Mechanism check on a CPU-only host: ``r38/gpu_sim.py``.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Fork, buffer_utils_ns, fork, make_target, rebind


def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
    """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk."""
    key = self.stream_key()
    chunk = self.open
    if chunk is None or key != self.open_key or self.open_off > self.chunk_bytes:  # BUG: `+ nbytes` dropped
        if chunk is not None:
            self.open = None  # closed before the next take, which may raise (no second give_back)
            self.give_back(chunk)
        chunk = self.take()
        self.mark_start(chunk)  # a small pool never waits on its start: before the host copy is fine
        self.open, self.open_key, self.open_off = chunk, key, 0
    start = self.open_off
    self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN  # noqa: F821
    return chunk.tensor(shape, dtype, start)


class BuggyStagingPool(_staging.StagingPool):
    small_tensor = rebind(small_tensor, _staging)


def _fork() -> Fork:
    return fork("b27", _staging={"StagingPool": BuggyStagingPool})


def target() -> Target:
    f = _fork()
    return make_target(
        "b27_small_fit_ignores_payload",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
