"""b07 - every list's dtype is asked of ``torch.tensor``, whose fallback then hides the huge-int refusal.

Where: ``_host._list_own_dtype`` (the dtype a list has on its own, when no ``dtype``/``out`` fixes it).

Change (old -> new)::

    if _has_typed_leaf(data):
        try: ... return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return source.dtype
    ->
    if isinstance(data, (list, tuple)):  # BUG: torch.tensor is the reference inference: ask it for every list
        try: ... return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return source.dtype

Why an engineer writes it: the contract is "lists follow ``torch.tensor``'s dtype inference", so
asking ``torch.tensor`` directly for every list looks like the one source of truth, and it
deletes the hand-written kind table below it from the hot path's logic. For every list
``torch.tensor`` accepts, the answer is identical. But the ``except`` clause was written for
lists ``torch.tensor`` refuses *because of their leaves*: a list of ints reaching 2**63 is
refused by ``torch.tensor`` too, and the fallback hands back numpy's ``uint64``, so the
reference's own refusal (int64 data cannot hold it) never fires.

Promise broken: docs/reference.md "Python ints past int64" ("with no dtype ... it is refused with
``ValueError``"), docs/contracts.md "bad-input" (the value table's "lists of ints past int64 with
no dtype, cold and after warm calls": ``ValueError`` naming ``data``).

Smallest input (CPU)::

    async_tensor_h2d([2**63], device="cpu")

Reference: ``ValueError: data[0] = 9.223372036854776e+18 is out of range for torch.int64 ...``.
Bug: returns ``tensor([9223372036854775808], dtype=torch.uint64)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _list_own_dtype(
    data: list[Any] | tuple[Any, ...] | bool | int | float | complex, arr: np.ndarray, source: torch.Tensor
) -> torch.dtype:
    """The dtype a (nested) list or Python number has on its own, as ``torch.tensor(data)`` infers it."""
    if isinstance(data, (list, tuple)):  # BUG: was _has_typed_leaf(data)
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
    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64


def target() -> Target:
    return fork_target_full(
        "b07_dtype_inference_fallback_for_all_lists", fork("b07", _host={"_list_own_dtype": _list_own_dtype})
    )
