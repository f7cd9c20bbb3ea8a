"""b04 (CPU-visible): the typed-leaf scan reuses one work-list across calls (a mutable default).

Where: ``h2d_impl/_host.py``, ``_has_typed_leaf``.

Change: ``stack = [data] if isinstance(data, (list, tuple)) else []`` ->
a work-list kept between calls (``def _has_typed_leaf(data, _stack=[])`` and
``stack = _stack; stack.append(data)`` when ``data`` is a list or tuple).

Why plausible: a micro-optimisation of the hot list path ("the loop always drains the
stack, so one list can be reused instead of allocating one per call"). The loop drains it
only when it runs to the end: the early ``return True`` on the first typed leaf leaves
the unscanned levels of *that* call's data on the shared list, and the next call scans
them as if they were its own (also a data race between threads).

Promise broken: docs/reference.md "dtype: ... lists follow ``torch.tensor``'s inference";
README values/bad-input: valid and bad calls judged "cold and after valid calls that warm
the target's caches"; the bad-input kind ``uint64-beyond-int64``: an int list past int64
without ``dtype`` raises ``ValueError``.

Smallest input: first ``async_tensor_h2d([[np.float32(1)], [np.float32(2)]], device='cpu')``
(leaves ``[np.float32(1)]`` on the shared list), then ``async_tensor_h2d([2**63], device='cpu')``.
Reference: the second call raises ``ValueError: data[0] = 9.223372036854776e+18 is out of
range for torch.int64 ...``.
Bug: the second call's scan finds the leftover numpy scalar, asks ``torch.tensor([2**63])``
for the dtype, which refuses, falls back to numpy's ``uint64``, and returns
``tensor([9223372036854775808], dtype=torch.uint64)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _has_typed_leaf(data: Any, _stack: list = []) -> bool:  # noqa: B006  BUG: one work-list for every call
    stack = _stack
    if isinstance(data, (list, tuple)):  # a bare Python number has no leaves
        stack.append(data)
    while stack:
        level = stack.pop()
        if set(map(type, level)) <= _PLAIN_LEAVES:  # noqa: F821
            continue
        for item in level:
            if type(item) in _PLAIN_LEAVES:  # noqa: F821
                continue
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):
                return True
    return False


def _fork() -> Fork:
    # a fresh work-list per target (so two targets of one process do not share it)
    fn = _has_typed_leaf
    fn = type(fn)(fn.__code__, fn.__globals__, fn.__name__, ([],), fn.__closure__)
    return fork("b04", _host={"_has_typed_leaf": fn})


def target() -> Target:
    return fork_target_full("b04_typed_leaf_scan_stack_shared", _fork())
