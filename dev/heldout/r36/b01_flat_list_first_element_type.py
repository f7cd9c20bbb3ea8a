"""Flat-list fast path decides the list's type by its first element only.

What changed: ``_host._flat_list`` (the hot path of token-id / position lists) picked the
numpy dtype from ``set(map(type, data))`` and took the fast path only when every element
had one exact type. The change looks up ``type(data[0])`` instead: "engine lists are
homogeneous, and the set() over 4,096 ints is a measurable part of a small call".

Why an engineer writes it: it is a micro-optimisation of the hottest path, and every
list the engine's own call sites build (token ids, positions, slot mappings) is indeed
homogeneous, so nothing in the engine's tests changes.

Promise broken: README/contracts "values": lists follow ``torch.tensor``'s dtype
inference, and the result equals the data converted to the resolved dtype. A mixed list
whose first element is an int is built as int64 (floats truncated); one whose first
element is a bool is built as bool (every nonzero int becomes True).

Smallest input: ``async_tensor_h2d([1, 2.5], device="cpu")``: reference
``tensor([1.0, 2.5])`` (float32, torch.tensor's inference); bug ``tensor([1, 2])`` (int64).
Also ``[True, 2]``: reference int64 ``[1, 2]``, bug bool ``[True, True]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    if type(data) not in (list, tuple) or not data:
        return None
    # BUG: the first element's type stands for the whole list (was: set(map(type, data)) with one member)
    spec = _FLAT_KINDS.get(type(data[0]))  # noqa: F821 (resolved in the forked _host module)
    if spec is None:
        return None
    try:
        arr = np.array(data, dtype=spec[0])
    except OverflowError:
        return None
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def target() -> Target:
    return fork_target("b01_flat_list_first_element_type", fork("b01", _host={"_flat_list": _flat_list}))
