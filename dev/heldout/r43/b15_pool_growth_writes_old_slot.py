"""b15 (CPU): when a pool slot grows, the rows are written into the slot it replaced (a stale local).

Where: buffer_utils.py, ``UvaBufferPool.copy_to_uva`` (the growth branch).
Change: ``buf = self._uva_bufs[nxt] = grown`` -> ``self._uva_bufs[nxt] = grown`` (``buf`` still names the
old, retired slot).
Why plausible: the chained assignment reads like a redundancy and is "simplified" into a plain store;
no call that fits its slot is affected.
Promise broken: UvaBufferPool docstring: "copy_to_uva(x) writes x into the next slot (growing it to the next
power of two rows when len(x) exceeds it) and returns the slot's view of len(x) rows".
Smallest input:
    pool = UvaBufferPool(2, torch.int32)
    pool.copy_to_uva([1, 2, 3])           # 3 rows into a 2-row slot: it grows to 4
Reference: the view holds [1, 2, 3]. Bug: ValueError "could not broadcast input array from shape (3,) into
shape (2,)" (numpy, writing into the old 2-row slot); a tensor x gets torch's RuntimeError.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b15"


def copy_to_uva(self, x):
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
        self._uva_bufs[nxt] = grown  # BUG: was `buf = self._uva_bufs[nxt] = grown`
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target() -> Target:
    return bu_target(TAG, "b15_pool_growth_writes_old_slot", classes())
