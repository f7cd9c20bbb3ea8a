"""b13 - ``CpuGpuBuffer._rows`` memoised with ``functools.cache``: buffers live forever, ``True``/``1.0`` hit ``1``.

Where: ``CpuGpuBuffer._rows`` (validates the ``n`` of ``copy_to_gpu(n)`` / ``copy_to_cpu(n)``).

Change (old -> new)::

    def _rows(self, n: Any) -> int | None:
        return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")
    ->
    @functools.cache  # BUG: the step loop calls copy_to_gpu with the same few n every step
    def _rows(self, n: Any) -> int | None:
        return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")

Why an engineer writes it: ``copy_to_gpu(n)`` runs several times per engine step with a handful
of distinct ``n`` (decode batches repeat), and ``row_count`` is pure for a given buffer, so a
method cache looks free. Two classic traps follow: the cache key holds ``self`` (every buffer
ever validated is kept alive, with its pinned ``.cpu`` and device ``.gpu``), and keys compare by
``==``/``hash``, so ``True``, ``1.0`` and ``np.float64(1.0)`` hit the entry of ``1``.

Promise broken: docs/contracts.md "buffer" (a bool or a float ``n`` raises ``TypeError`` naming
``n``, copying nothing; ``prop_buffer_bad_rows``, the state machine's ``n`` from -3 to capacity+4)
and "step-loop" ("at quiescence no fresh input and no dropped buffer of any step is still
referenced (weak references, after ... a garbage collection)").

Smallest input (CPU)::

    b = CpuGpuBuffer(2, dtype=torch.int32, device="cpu")
    b.copy_to_gpu(1); b.copy_to_gpu(True)

Reference: the second call raises ``TypeError: n must be an int or None, got True``.
Bug: it copies one row and returns ``b.gpu[:1]``; and ``weakref.ref(b)`` stays alive after
``del b; gc.collect()``.
"""

from __future__ import annotations

import functools
from typing import Any

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer
from plumbing import fork, fork_target_full, rebind


def _rows(self, n: Any) -> int | None:
    return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")  # noqa: F821


def target() -> Target:
    buf = type(
        "CpuGpuBuffer",
        (CpuGpuBuffer,),
        {"__module__": __name__, "_rows": functools.cache(rebind(_rows, _buffer))},  # BUG: memoised method
    )
    return fork_target_full("b13_buffer_rows_memoised", fork("b13"), buffer_cls=buf)
