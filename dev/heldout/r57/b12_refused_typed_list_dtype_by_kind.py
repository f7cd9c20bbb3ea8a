"""b12 (CPU): where ``torch.tensor`` refuses a list holding arrays or tensors, its dtype is taken from numpy's *kind* by the plain-number rules.

Where: ``h2d_impl/_host.py::_list_own_dtype`` (lists and tuples holding numpy scalars, ndarrays or tensors, without
``dtype=``/``out=``: lists of per-request tensors or arrays of several elements, 0-d arrays beside numbers).

Change: one inference rule for every list ("numpy's dtype is the wrong model here: numpy makes float64 of a
float32 scalar beside a Python float, where torch keeps float32; where ``torch.tensor`` refuses the list, fall
through to the plain-number rules below, as ``torch.tensor`` infers numbers")::

    except (TypeError, ValueError, RuntimeError, OverflowError):                      # reference
        return source.dtype

    except (TypeError, ValueError, RuntimeError, OverflowError):                      # bug
        pass                       # then: bool, int64, the default float dtype, the default complex dtype

``torch.tensor`` refuses a list of tensors of more than one element (``only one element tensors can be converted
to Python scalars``) and a 0-d array beside numbers: exactly the lists whose leaves carry a dtype of their own.
The plain-number rules then discard it: a list of float64 tensors or arrays becomes the default float dtype
(float32), its values rounded; a list of int16 tensors becomes int64 (values kept, dtype widened). The
reference keeps the dtype numpy found for the leaves.

Promise broken: h2d_impl/_host.py ``as_source_tensor``: "numpy scalars, ndarrays and tensors inside a list keep their dtype as
``torch.tensor(data)`` does ... where ``torch.tensor`` refuses such a list, numpy's dtype for it"; ``_list_own_dtype``: "with
numpy scalars, arrays or tensors among the elements, ``torch.tensor``'s own answer (numpy's dtype where ``torch.tensor``
refuses the list)"; docs/reference.md: "lists follow ``torch.tensor``'s inference (numpy scalars, 0-d tensors and ndarrays
inside them included)".

Smallest input: ``async_tensor_h2d([torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0.3, 0.4],
dtype=torch.float64)], device='cpu')``.
Reference: ``tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.float64)``. Bug: the float32 rounding of those values
(``dtype=torch.float32``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _has_typed_leaf)


def _list_own_dtype(data: Any, arr: np.ndarray, source: torch.Tensor) -> torch.dtype:
    """The dtype a (nested) list or Python number has on its own, as ``torch.tensor(data)`` infers it."""
    if _has_typed_leaf(data):
        try:
            with warnings.catch_warnings():  # "Creating a tensor from a list of numpy.ndarrays is extremely slow"
                warnings.simplefilter("ignore", UserWarning)
                return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            pass  # BUG (r57 b12): torch refused it: the plain-number rules below, not numpy's dtype (source.dtype)
    kind = arr.dtype.kind
    if kind == "b":
        return torch.bool
    if kind in "iu":
        return torch.int64
    if kind == "f":
        return torch.get_default_dtype()
    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64


def target() -> Target:
    f = fork("b12", _host={"_list_own_dtype": _list_own_dtype})
    return make_target(
        "b12_refused_typed_list_dtype_by_kind",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12"),
    )
