"""b10 (CPU-visible, _host.py ``_flat_list``): the flat-list fast path no longer falls back on ``OverflowError``.

What changed: the ``try: ... except OverflowError: return None`` around
``np.array(data, dtype=spec[0])`` was removed.

Why an engineer would write it: "the fast path only sees token ids and positions, which
always fit in int64; the try/except is dead weight on every call". A flat list of Python
ints holding one value outside int64 now raises numpy's ``OverflowError`` instead of
going to the general route (which makes a uint64 array, or raises the documented
``ValueError``).

Promise broken: (1) valid calls: a list of ints in ``[2**63, 2**64)`` into ``torch.uint64``
(docs/reference.md dtype rules; contracts.md values ``prop_values_wide_numpy`` / dtype
matrix "every target dtype at its edges from lists"); (2) out-of-range integers raise
``ValueError`` naming ``data`` (docs/reference.md "Integer targets ... Refused with
ValueError"; contracts.md bad-input kinds ``int-beyond-int64``, ``uint64-beyond-int64``).

Smallest input: ``async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")``.
Reference: ``tensor([9223372036854775808], dtype=torch.uint64)``.
Bug: ``OverflowError: Python int too large to convert to C long``.
(Also ``async_tensor_h2d([2**64], dtype=torch.int64, device="cpu")``: ``ValueError`` vs
``OverflowError``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    """``(source, own_dtype)`` of a non-empty flat list or tuple of one exact type among int, float and bool; None otherwise."""
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    spec = _FLAT_KINDS.get(kinds.pop())  # noqa: F821
    if spec is None:
        return None
    arr = np.array(data, dtype=spec[0])  # BUG: no `except OverflowError: return None` (ints past int64 escape)
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def _fork() -> Fork:
    return fork("b10", _host={"_flat_list": _flat_list})


def target() -> Target:
    f = _fork()
    return make_target(
        "b10_flat_list_overflow_escapes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
