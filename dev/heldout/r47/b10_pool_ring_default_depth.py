"""b10 pool_ring_default_depth (CPU) -- ``buffer_utils.UvaBufferPool.copy_to_uva``.

What changed: the round-robin step takes the module's default depth instead of the pool's::

    nxt = (self._curr + 1) % self.max_concurrency        # reference
    nxt = (self._curr + 1) % DEFAULT_MAX_CONCURRENCY     # bug

Realistic: a name slip between the constant and the attribute it initialises; pools of the
default depth (2, the common case and vLLM's) behave exactly as before.

Promise broken (buffer_utils ``UvaBufferPool``: "A reader of that view sees its data until
``max_concurrency`` more calls have come"; contract ``pool``: depths 1-9, "every reader reads
its own step's rows"). A depth-1 pool indexes a slot it does not have; a deeper pool hands
out slot 0 and 1 only, so a reader is overwritten two calls later.

Smallest input: ``UvaBufferPool(2, torch.int32, max_concurrency=1).copy_to_uva([1, 2])``:
reference returns ``[1, 2]``; bug raises ``IndexError`` (list index out of range). With
depth 3: ``v = p.copy_to_uva([1])``, ``p.copy_to_uva([2])``, ``p.copy_to_uva([3])``:
reference ``v == [1]``; bug ``v == [3]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_uva(self, x):
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
    nxt = (self._curr + 1) % DEFAULT_MAX_CONCURRENCY  # noqa: F821
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np  # noqa: F821
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_pool_ring_default_depth",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
