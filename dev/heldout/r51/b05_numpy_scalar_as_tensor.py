"""b05 (CPU): a bare numpy scalar converted by ``torch.as_tensor(data)``: uint64 scalars past int64 and ``np.ulonglong`` refused.

Where: ``h2d_impl/_host.py::as_source_tensor``, the ``np.generic`` branch.

Change (one line)::

    source = _numpy_to_tensor(np.asarray(data))  # reference: the array route (canonical views, byte order, refusals)
    source = torch.as_tensor(data)               # bug: "a scalar needs no array: torch takes numpy scalars"

``torch.as_tensor`` does take most numpy scalars with their dtype (``np.float16(1.5)`` is a
0-d float16, ``np.uint32(7)`` a 0-d uint32), so the usual cases agree. It does not take
``np.uint64`` values of 2**63 and up (``TypeError: an integer is required``: it goes through a
Python int into int64) nor ``np.ulonglong`` (numpy's type for such ints on some builds), and
its refusals of non-numeric scalars (``np.str_``, ``np.datetime64``) no longer name ``data``.
The reference views the 0-d array's canonical dtype and copies ``2**64 - 1`` exactly.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring, Args: "a Python or numpy scalar
(``S == ()``)"; docs/reference.md, Inputs: "Python and numpy scalars"; README, values:
"extremes in every kind"; docs/reference.md, Errors: "naming the argument" (the refusal of
``np.str_('a')`` names no argument).

Smallest input: ``async_tensor_h2d(np.uint64(2**64 - 1), device='cpu')``.
Reference: ``tensor(18446744073709551615, dtype=torch.uint64)`` (0-d). Bug: ``TypeError: an
integer is required``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import Raw, bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host

_REF = _host.as_source_tensor


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    if isinstance(data, np.generic):
        source = torch.as_tensor(data)  # BUG (r51 b05): for _numpy_to_tensor(np.asarray(data))
        return source, source.dtype
    return _REF(data, infer_dtype=infer_dtype)  # every other kind: the reference, unchanged


def target() -> Target:
    # Raw: kept with this module's globals (it defers to the reference function); h2d's import is re-pointed to it
    f = fork("b05", _host={"as_source_tensor": Raw(as_source_tensor)})
    return make_target(
        "b05_numpy_scalar_as_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
