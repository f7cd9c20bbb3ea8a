"""b15 (CPU): the serial host copy's ``np.copyto`` has its arguments swapped (source first).

The change: in ``h2d._serial_copy``, ``np.copyto(dst.numpy(), src.numpy(), casting="unsafe")``
became ``np.copyto(src.numpy(), dst.numpy(), casting="unsafe")``.

Why an engineer writes it: a refactor of the single-threaded copy (numpy's ``copyto(dst,
src)`` reads the other way round from ``shutil.copy(src, dst)`` and ``Tensor.copy_``'s
"self <- other"); the small test payloads (at most 32,768 elements take torch's own
``copy_``) never reach the numpy route.

What breaks: for payloads of 32,769 elements up to 256 KiB whose cast numpy performs like
torch (e.g. an int32 array), the *caller's* data is overwritten with the uninitialised
staging tensor and the result is that garbage: the values contract and "``data`` is only
read" (input-untouched). ``async_tensor_h2d(np.arange(32769, dtype=np.int32),
device="cpu")`` returns garbage and clobbers the array.
"""

from __future__ import annotations

import numpy as np

from ._common import fork, fork_target


def _serial_copy(dst, src):
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        with np.errstate(all="ignore"):
            np.copyto(src.numpy(), dst.numpy(), casting="unsafe")  # BUG: (dst, src) swapped
        return dst
    _copy_in_pieces(dst, src)
    return dst


def target():
    return fork_target("b15-copyto-swapped", fork("b15", h2d={"_serial_copy": _serial_copy}))
