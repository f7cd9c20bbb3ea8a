"""b22 (CPU): every ``CpuGpuBuffer`` is appended to a class-level registry (a plain list), never removed.

The change: ``CpuGpuBuffer.__init__`` ends with ``CpuGpuBuffer._live.append(self)`` (a
wrapper around the reference ``__init__`` here).

Why an engineer writes it: to report the pinned bytes held by all buffers next to
``staging_stats()`` (and to re-pin them after a fork), the buffers are registered at
construction. A ``weakref.WeakSet`` was meant; a list was written.

What breaks: a dropped buffer and its pinned host and device memory are never freed
(docs/contracts.md, step-loop: "at quiescence no ... dropped buffer of any step is still
referenced (weak references, after the target's ``empty_cache`` and a garbage
collection)"; hygiene: no pinned or device bytes retained). ``b = CpuGpuBuffer(4,
dtype=torch.int32, device="cpu"); r = weakref.ref(b); del b; gc.collect()``: ``r()`` is
still the buffer.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    _live: list = []

    def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
        super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)
        CpuGpuBuffer._live.append(self)  # BUG: strong references (a WeakSet was meant): dropped buffers never free


def target():
    return make_target("b22-buffer-registry-leak", buffer_cls=CpuGpuBuffer)
