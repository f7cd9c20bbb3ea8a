"""b02 (CPU): a list of Python ints reaching 2**63 rebuilt as uint64 from the flat list of its leaves: a nested list loses its shape.

Where: ``h2d_impl/_host.py::_list_to_array``, the branch for ints past int64 (numpy made float64 of them).

Change (one line)::

    return np.asarray(data, dtype=np.uint64)   # reference: the data again, with its nesting
    return np.asarray(ints, dtype=np.uint64)   # bug: "we already hold every int; skip a second walk of data"

``ints`` is the flat list of leaves (``np.asarray(data, dtype=object).ravel()``), so a
nested list comes back 1-D: ``[[0], [2**63]]`` becomes shape ``(2,)``, ``[[1, 2**63], [3, 4]]``
shape ``(4,)``. Flat lists are unchanged (their shape is the flat one), which is why
the engineer's test of the branch (``[1, 2**64 - 1]``) kept passing. With ``out=`` of the right
shape the call is refused (``ValueError`` naming ``out``: "out.shape=(2, 1) but data has shape
(2,)"); with ``device=`` the result has the wrong shape.

Promise broken: docs/reference.md, "Python ints past int64": "as in `torch.tensor`, a list
whose ints reach 2**63 needs a target dtype that holds them (`[1, 2**64 - 1]` with
`dtype=torch.uint64` is uint64 data ...)"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring,
data: "host data of shape ``S``: a (nested, rectangular) list ..." and Returns: "a new
contiguous tensor of shape ``S``"; README, values: "result equals `data` converted to the
resolved dtype, bit for bit, same shape".

Smallest input: ``async_tensor_h2d([[0], [2**63]], dtype=torch.uint64, device='cpu')``.
Reference: ``tensor([[0], [9223372036854775808]], dtype=torch.uint64)`` (shape ``(2, 1)``).
Bug: ``tensor([0, 9223372036854775808], dtype=torch.uint64)`` (shape ``(2,)``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _list_to_array(data: Any) -> np.ndarray:
    """Build a numpy array from a (nested) list/tuple/scalar, rejecting ragged or non-numeric input."""
    try:
        arr = np.asarray(data)
    except ValueError as exc:  # ragged nesting: numpy>=1.24 raises instead of making objects
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc
    except (TypeError, RuntimeError) as exc:  # e.g. bfloat16 or requires_grad tensors inside a list
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(ints, dtype=np.uint64)  # BUG (r50 b02): the flat leaves, not `data`: nesting lost
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b02", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b02_nested_uint64_flattened",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
