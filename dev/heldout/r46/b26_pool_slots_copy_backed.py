"""b26 (GPU-only): ``UvaBufferPool`` builds its slots as ``NonUvaBuffer`` even where UVA works.

Where: ``buffer_utils.UvaBufferPool.__init__``. The reference chooses the slot class once:
``UvaBuffer if uva_available() else NonUvaBuffer`` (pinned slots read by kernels through
their UVA address; a pageable twin refreshed by a copy only where UVA is missing). The
bug always takes ``NonUvaBuffer`` ("UVA views misbehave under CUDA graphs on some setups;
the copy path is always correct").

Why realistic: a blanket workaround for one platform's problem. The values still arrive,
but every ``copy_to_uva`` (and ``UvaBackedTensor.copy_to_uva``, ``copy_to_gpu``) is now a
``non_blocking`` copy from *pageable* memory: CUDA synchronises the stream first, so each
step's input preparation waits for the forward pass queued before it, and every slot holds
device memory besides its host copy.

On a CPU-only host UVA is unavailable and the reference takes ``NonUvaBuffer`` too: every
call behaves as the control. On one CUDA GPU: ``p = UvaBufferPool(1 << 20,
torch.int32)``; ``torch.cuda._sleep(int(2e9))``; time ``p.copy_to_uva(np.ones(1 << 20,
np.int32))`` on the host: the reference returns after the host write (about a millisecond)
with a view whose ``data_ptr()`` is the slot's pinned ``.cpu``; the bug returns after the
queued sleep (about a second), with a view in device memory.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def __init__(self, size, dtype, max_concurrency=None):
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls = NonUvaBuffer  # BUG: was `UvaBuffer if uva_available() else NonUvaBuffer`
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


def target() -> Target:
    f = fork("b26")
    return make_target(
        "b26_pool_slots_copy_backed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b26", methods={"UvaBufferPool": {"__init__": __init__}}),
    )
