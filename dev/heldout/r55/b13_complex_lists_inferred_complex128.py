"""b13 (CPU): lists of Python complex numbers are inferred as complex128 whatever the default dtype ("a Python complex is two doubles").

Where: ``h2d_impl/_host.py::_list_own_dtype`` (lists, tuples and scalars of Python complex numbers
with no ``dtype`` and no ``out``; every entry point).

Change: the last line, the complex case, "fixed" to keep the precision the data has::

    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64   # reference

    return torch.complex128  # a Python complex is a pair of doubles: keep them                # bug

``torch.tensor([1j])`` is complex64 under the float32 default (the default complex dtype follows the
default float dtype, as Python floats give float32). The bug's results hold the same numbers in
twice the bytes and the wrong dtype: ``[0.1+0j]`` gives complex128 ``0.1`` where the reference gives
complex64 ``0.10000000149``; a model that multiplies the result with its complex64 tensors gets
complex128 out (type promotion), or a dtype mismatch in an ``out=`` of its own further on. A
complex number mixed into a list of floats or ints is complex128 too; floats alone still follow the
default.

Promise broken: h2d_impl/_host.py ``as_source_tensor``: "``own_dtype`` follows ``torch.tensor``'s inference
for lists (... complex -> the default complex dtype ...)"; h2d_impl/h2d.py ``async_tensor_h2d``: "dtype:
... else the data's own dtype (for lists, ``torch.tensor``'s inference)"; docs/contracts.md, values:
"complex numbers give complex64 under the float32 default".

Smallest input: ``async_tensor_h2d([1j], device='cpu')``.
Reference: ``tensor([0.+1.j])`` (complex64). Bug: ``tensor([0.+1.j], dtype=torch.complex128)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with its last line changed; every other name resolves in the forked module.
# ruff: noqa: F821


def _list_own_dtype(data: Any, arr: np.ndarray, source: torch.Tensor) -> torch.dtype:
    if _has_typed_leaf(data):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return source.dtype
    kind = arr.dtype.kind
    if kind == "b":
        return torch.bool
    if kind in "iu":
        return torch.int64
    if kind == "f":
        return torch.get_default_dtype()
    return torch.complex128  # BUG (r55 b13): a Python complex is a pair of doubles (torch says complex64 here)


def target() -> Target:
    f = fork("b13", _host={"_list_own_dtype": _list_own_dtype})
    return make_target(
        "b13_complex_lists_inferred_complex128",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13"),
    )
