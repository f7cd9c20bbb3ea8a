"""2-D int lists of 1024 rows or more (block tables, one row per running request) take a
fast path that builds an np.int32 array (block ids fit int32, and the GPU block table is
int32). With dtype=None and no out, the result then keeps int32 instead of torch.tensor's
inferred int64."""

from __future__ import annotations

import itertools

import numpy as np

from h2d_contracts import h2d_impl

from ._common import make_target

MIN_ROWS = 1024


def _is_int_table(data):
    if type(data) is not list or len(data) < MIN_ROWS:
        return False
    if not all(type(r) is list for r in data) or len(set(map(len, data))) != 1:
        return False
    return set(map(type, itertools.chain.from_iterable(data))) == {int}


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if _is_int_table(data):
        try:
            data = np.array(data, dtype=np.int32)  # BUG: the array's dtype becomes the inferred dtype
        except OverflowError:  # ids past int32: general route
            pass
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b02-block-table-int32", fn=async_tensor_h2d)
