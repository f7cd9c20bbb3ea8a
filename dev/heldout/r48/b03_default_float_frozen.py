"""b03 (CPU): the flat-list fast path's dtype for floats frozen at import (``torch.get_default_dtype()`` read once).

Where: ``h2d_impl/_host.py::_FLAT_KINDS`` (one constant), read by ``_flat_list``.

Change (one constant)::

    float: (np.dtype(np.float64), None),                      # reference: None = "the default dtype at the call"
    float: (np.dtype(np.float64), torch.get_default_dtype()),  # bug: "no `or` per call": read at import (float32)

A flat list of Python floats then gets float32 whatever the process's default dtype is
when it calls; nested lists (the general route) still follow the default, so the two
routes disagree.

Promise broken: docs/contracts.md, values: "Lists follow `torch.tensor`'s dtype inference;
Python floats follow torch's default dtype."; h2d_impl/_host.py ``as_source_tensor``
docstring: "``own_dtype`` follows ``torch.tensor``'s inference for lists (bool -> torch.bool,
int -> torch.int64, float -> the default dtype, ...)"; h2d_impl/h2d.py ``async_tensor_h2d``
docstring, dtype: "else the data's own dtype (for lists, ``torch.tensor``'s inference)".

Smallest input: under ``torch.set_default_dtype(torch.float64)``,
``async_tensor_h2d([1.5], device='cpu')``.
Reference: ``tensor([1.5], dtype=torch.float64)``. Bug: ``tensor([1.5], dtype=torch.float32)``
(``torch.tensor([1.5])`` is float64 there).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

#: BUG (r48 b03): the float entry's torch dtype evaluated once, when the module is imported.
_FLAT_KINDS: dict[type, tuple[np.dtype, torch.dtype | None]] = {
    int: (np.dtype(np.int64), torch.int64),
    float: (np.dtype(np.float64), torch.get_default_dtype()),
    bool: (np.dtype(np.bool_), torch.bool),
}


def target() -> Target:
    f = fork("b03", _host={"_FLAT_KINDS": _FLAT_KINDS})
    return make_target(
        "b03_default_float_frozen",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
