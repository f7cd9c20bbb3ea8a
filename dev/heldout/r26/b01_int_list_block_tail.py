"""Flat int lists above 8192 elements are converted 4096 elements at a time (so a huge
token-id list does not hold the GIL in one np.array call) into a preallocated array; the
block count is ``n // BLOCK``, so the remainder block of a length that is not a multiple
of 4096 is never filled (np.empty garbage)."""

from __future__ import annotations

import numpy as np

from h2d_contracts import h2d_impl

from ._common import make_target

THRESHOLD = 8192
BLOCK = 4096


def _blocked(data):
    n = len(data)
    arr = np.empty(n, dtype=np.int64)
    for b in range(n // BLOCK):  # BUG: should be ceil(n / BLOCK)
        s = b * BLOCK
        arr[s : s + BLOCK] = data[s : s + BLOCK]
    return arr


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if type(data) in (list, tuple) and len(data) > THRESHOLD and set(map(type, data)) == {int}:
        try:
            data = _blocked(data)
        except OverflowError:  # ints outside int64: the general route decides
            pass
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b01-int-list-block-tail", fn=async_tensor_h2d)
