"""Flat float lists of 4096 elements or more are converted with ``np.array(data,
dtype=np.float32)`` ("the default dtype is float32, halve the host bytes"), then cast to
the target dtype. Exact for the default float32 target; float64 (dtype=, out=, or a
float64 default dtype) and large floats into integer dtypes lose precision."""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts import h2d_impl

from ._common import make_target

THRESHOLD = 4096


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if type(data) in (list, tuple) and len(data) >= THRESHOLD and set(map(type, data)) == {float}:
        with np.errstate(all="ignore"):
            arr = np.array(data, dtype=np.float32)  # BUG: float32 intermediate
        if dtype is None and out is None:
            dtype = torch.get_default_dtype()  # keep the list's inferred dtype
        data = arr
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b07-float-list-f32-staging", fn=async_tensor_h2d)
