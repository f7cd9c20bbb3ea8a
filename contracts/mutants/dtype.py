"""Mutants that break the dtype contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _host as H  # noqa: PLC2701 - a mutant is the reference with one change: white-box
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import ReferenceBuffer, mutant, parsed_device, reference_target, untyped_leaves


@mutant(killed_by=('dtype',))
def dtype_mismatch_converted() -> Target:
    """dtype disagreeing with out.dtype is silently converted to out.dtype instead of rejected."""

    def fn(data, device=None, dtype=None, out=None):
        if out is not None and dtype is not None and dtype != out.dtype:
            dtype = None
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("dtype_mismatch_converted", fn)
