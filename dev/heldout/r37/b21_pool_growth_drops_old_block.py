"""GPU only. UvaBufferPool.copy_to_uva drops a grown slot's old buffer at once, as vLLM does.

What changed: the ``self._retire(buf)`` call before replacing a grown slot was removed
(vLLM 0.33.0's ``copy_to_uva`` just assigns the new buffer).

Why an engineer would write it: "aligning with upstream": the retire list and a CUDA
event per growth look like bookkeeping vLLM does without, and on the CPU (NonUvaBuffer
slots) ``_retire`` does nothing anyway.

Promise broken (UvaBufferPool's docstring and reference.md: "a grown pool slot's old
pinned block is kept until the current stream has passed the growth (an event), so a
reader queued before the growth keeps reading its data"; contract pool, "growth
included"). With the bug the old UvaBuffer is freed as soon as the caller drops its view:
the caching host allocator hands its pinned block to the next pinned allocation, and a
kernel still queued behind busy work reads the new tenant's bytes.

Needs CUDA with pinned memory (on the CPU, ``_retire`` keeps nothing and the slots are
NonUvaBuffers whose views are device copies).

Smallest input: ``p = UvaBufferPool(4, torch.int32, 1); v = p.copy_to_uva(np.arange(1,
5, dtype=np.int32))``; queue ``torch.cuda._sleep(...)`` then ``r = v.clone()``; ``del v``;
``p.copy_to_uva(np.zeros(5, np.int32))`` (grows the slot); ``junk = torch.full((4,), 99,
dtype=torch.int32, pin_memory=True)``; synchronise: reference ``r == [1, 2, 3, 4]``, bug
``r == [99, 99, 99, 99]``.
"""

from __future__ import annotations

from typing import Any

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _copy_to_uva(self, x):  # type: ignore[no-untyped-def]
    if isinstance(x, torch.Tensor):  # noqa: F821
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):  # noqa: F821
        shape = np.shape(x)  # noqa: F821
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        # BUG: vLLM's growth: the old buffer is not retired, its pinned block freed while readers are queued
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np  # noqa: F821
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


class UvaBufferPool(REF.UvaBufferPool):
    copy_to_uva = rebind(_copy_to_uva, Any=Any)


def target() -> Target:
    return make_target("pool_growth_drops_old_block", UvaBufferPool=UvaBufferPool)
