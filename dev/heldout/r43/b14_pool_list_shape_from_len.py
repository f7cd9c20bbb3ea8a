"""b14 (CPU): ``UvaBufferPool.copy_to_uva`` takes a list's shape as ``(len(x), *slot rows)`` instead of measuring it.

Where: buffer_utils.py, ``UvaBufferPool.copy_to_uva``.
Change: ``elif isinstance(x, (np.ndarray, list)): shape = np.shape(x)`` -> ``shape = x.shape if isinstance(x,
np.ndarray) else (len(x), *self._shape[1:])``.
Why plausible: ``np.shape`` walks (and converts) a whole nested list just to read its shape, once more
than the write itself; the rows of a list are "obviously" slot rows. Lists of the right row shape,
arrays and tensors are unaffected; a wrong row length that numpy cannot broadcast still fails (in numpy).
Promise broken: UvaBufferPool.copy_to_uva docstring: "ValueError: x's trailing shape differs from a slot's
(vLLM broadcasts)"; docs/reference.md: "UvaBufferPool.copy_to_uva(x) with rows of another shape (ValueError)".
Smallest input:
    pool = UvaBufferPool((4, 3), torch.int32)
    pool.copy_to_uva([[1], [2]])          # rows of 1 into rows of 3
Reference: ValueError "x has shape (2, 1); a slot holds rows of shape (3,)". Bug: no exception; the view
holds [[1, 1, 1], [2, 2, 2]] (numpy broadcast each one-element row).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b14"


def copy_to_uva(self, x):
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
        shape = x.shape if isinstance(x, np.ndarray) else (len(x), *self._shape[1:])  # BUG: was np.shape(x)
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


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target() -> Target:
    return bu_target(TAG, "b14_pool_list_shape_from_len", classes())
