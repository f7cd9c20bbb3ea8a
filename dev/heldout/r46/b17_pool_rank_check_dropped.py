"""b17 (CPU): ``UvaBufferPool.copy_to_uva`` drops the rank test as implied by the row test.

Where: ``buffer_utils.UvaBufferPool.copy_to_uva``. The reference refuses ``x`` unless
``len(shape) == len(self._shape)`` and the trailing dimensions match (``ValueError``). The
bug keeps only the trailing test, ``tuple(shape[1:]) != self._shape[1:]`` ("equal trailing
shapes imply equal ranks"), which holds for every ``x`` of at least one dimension, but not
for a 0-d one: its ``()[1:]`` equals a 1-D pool's ``()``, and ``shape[0]`` then fails.

Why realistic: a redundant-looking clause removed in a cleanup; a scalar step input (one
request's value passed as ``np.int32(5)``/``torch.tensor(5)``) now dies with an
``IndexError`` from inside the pool instead of the documented refusal naming ``x``'s shape.

Smallest input: ``UvaBufferPool(3, torch.int32).copy_to_uva(np.array(5))``. Reference:
``ValueError: x has shape (); a slot holds rows of shape ()``. Bug:
``IndexError: tuple index out of range``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_uva(self, x):
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
        shape = np.shape(x)
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if tuple(shape[1:]) != self._shape[1:]:  # BUG: was `len(shape) != len(self._shape) or ...`
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b17")
    return make_target(
        "b17_pool_rank_check_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
