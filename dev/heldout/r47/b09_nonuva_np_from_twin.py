"""b09 nonuva_np_from_twin (CPU) -- ``buffer_utils.NonUvaBuffer.__init__``.

What changed: the numpy view is taken of the twin instead of the host tensor::

    self.np = self.cpu.numpy()          # reference
    self.np = self._uva.numpy()         # bug (the twin is made first, then viewed)

Realistic: on a CPU-only worker the "device" twin is a host tensor too, and both are
zeros of the same shape: a copy-paste between the two adjacent lines goes unnoticed.
Writes through ``.np`` now land in the twin and ``uva(n)``'s refresh copies ``.cpu``
(zeros) over them.

Promise broken (README, contract ``uva``: "``uva(n)`` is ``.cpu[:n]``"; buffer_utils:
"a pageable ``.cpu``/``.np`` source of truth"; ``UvaBuffer``: "np: its numpy view (same
memory)"; the pool's slots on a host without UVA are ``NonUvaBuffer``\\ s, so every
``UvaBufferPool.copy_to_uva(ndarray or list)`` returns zeros).

Smallest input: ``b = NonUvaBuffer(3, torch.int32)``; ``b.np[:] = [1, 2, 3]``; ``b.uva()``:
reference ``[1, 2, 3]``; bug ``[0, 0, 0]``. Through the pool:
``UvaBufferPool(2, torch.int32).copy_to_uva([5, 6])``: reference ``[5, 6]``, bug ``[0, 0]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def __init__(self, size, dtype, device=None):
    shape, dtype = _shape(size), _dtype(dtype)  # noqa: F821
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"  # noqa: F821
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")  # noqa: F821
    self._uva = torch.zeros(shape, dtype=dtype, device=device)  # noqa: F821
    self.np = self._uva.numpy()


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_nonuva_np_from_twin",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09", methods={"NonUvaBuffer": {"__init__": __init__}}),
    )
