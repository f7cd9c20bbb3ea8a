"""Non-C-contiguous ndarrays of 65,536 elements or more are made contiguous with
``arr.ravel(order="K").reshape(arr.shape)`` (no copy for Fortran-ordered arrays, a
memory-order copy otherwise: cheaper than a C-order gather). K order is memory order, so
a transposed / Fortran / permuted array comes out with its elements permuted."""

from __future__ import annotations

import numpy as np

from h2d_contracts import h2d_impl

from ._common import make_target

THRESHOLD = 65536


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if isinstance(data, np.ndarray) and data.size >= THRESHOLD and not data.flags.c_contiguous:
        data = data.ravel(order="K").reshape(data.shape)  # BUG: memory order, not C order
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b03-ndarray-ravel-k", fn=async_tensor_h2d)
