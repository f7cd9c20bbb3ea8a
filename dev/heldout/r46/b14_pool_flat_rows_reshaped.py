"""b14 (CPU): ``UvaBufferPool.copy_to_uva`` reshapes a list into the slot's rows.

Where: ``buffer_utils.UvaBufferPool.copy_to_uva``. The reference takes ``x``'s shape as it
is and refuses rows of another shape than a slot's (``ValueError``: a flat list into rows
of 3, rows of 2 into rows of 3). The bug first reshapes a list for multi-dimensional
pools, ``x = np.asarray(x).reshape(-1, *self._shape[1:])`` ("callers build block tables
as flat lists").

Why realistic: a convenience for one caller; any list whose element count happens to be a
multiple of a row is now accepted, its rows regrouped: ``[[1, 2], [3, 4], [5, 6]]`` into rows
of 3 becomes ``[[1, 2, 3], [4, 5, 6]]`` without a word.

Smallest input: ``p = UvaBufferPool((2, 3), torch.int32); p.copy_to_uva([[1, 2], [3, 4],
[5, 6]])``. Reference: ``ValueError: x has shape (3, 2); a slot holds rows of shape (3,)``.
Bug: a view of 2 rows, ``[[1, 2, 3], [4, 5, 6]]``.
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
        if isinstance(x, list) and len(self._shape) > 1:  # BUG (added): flat or regrouped rows
            x = np.asarray(x).reshape(-1, *self._shape[1:])
        shape = np.shape(x)
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
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_pool_flat_rows_reshaped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
