"""b15 (CPU): ``UvaBufferPool.copy_to_uva`` turns ndarrays into tensors with ``torch.from_numpy``.

Where: ``buffer_utils.UvaBufferPool.copy_to_uva``. The reference writes an ndarray (or a
list) through the slot's numpy view, ``buf.np[:n] = x``, so numpy handles any layout,
byte order or dtype of ``x``. The bug converts ndarrays first, ``x = torch.from_numpy(x)``
("one path for arrays and tensors: from_numpy shares memory, no copy"), and writes them
through ``buf.cpu``.

Why realistic: the "zero-copy" reflex; ``torch.from_numpy`` refuses arrays numpy handles
(negative strides, non-native byte order, fields of structured arrays), and warns on
read-only ones, so a reversed or byte-swapped step input now fails the step.

Smallest input: ``p = UvaBufferPool(3, torch.int32); p.copy_to_uva(np.array([3, 2, 1],
np.int32)[::-1])``. Reference: a view ``[1, 2, 3]``. Bug: ``ValueError: At least one
stride in the given numpy array is negative ...``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_uva(self, x):
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    if isinstance(x, np.ndarray):  # BUG (added): arrays take the tensor path, zero-copy
        x = torch.from_numpy(x)
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
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
    f = fork("b15")
    return make_target(
        "b15_pool_arrays_from_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
