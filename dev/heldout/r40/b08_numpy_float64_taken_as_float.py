"""b08 (CPU-visible): the typed-leaf scan lets Python-number *subclasses* through, and numpy's float64 is one.

Where: ``h2d_impl/_host.py``, ``_has_typed_leaf`` (the per-element test).

Change: ``if type(item) in _PLAIN_LEAVES: continue`` ->
``if isinstance(item, (bool, int, float, complex)): continue``.

Why plausible: written to let ``IntEnum`` token ids and other ``int``/``float`` subclasses
take the plain route ("a subclass of int is an int"). But ``numpy.float64`` subclasses
Python's ``float`` and ``numpy.complex128`` Python's ``complex`` (unlike ``np.int64`` or
``np.float32``), so lists of those two numpy scalar types are no longer seen as typed, and
their dtype is inferred as if they were Python floats (the default dtype).

Promise broken: docs/reference.md "dtype: ... lists follow ``torch.tensor``'s inference
(numpy scalars, 0-d tensors and ndarrays inside them included)"; ``as_source_tensor``:
"numpy scalars ... inside a list keep their dtype as ``torch.tensor(data)`` does".

Smallest input: ``async_tensor_h2d([np.float64(1.5)], device='cpu')``.
Reference: ``tensor([1.5000], dtype=torch.float64)`` (``torch.tensor([np.float64(1.5)]).dtype``).
Bug: ``tensor([1.5000])`` (float32, the default dtype); ``[np.complex128(1j)]`` likewise
becomes complex64. Values of float64 scalars that float32 cannot hold are rounded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _has_typed_leaf(data: Any) -> bool:
    stack = [data] if isinstance(data, (list, tuple)) else []
    while stack:
        level = stack.pop()
        if set(map(type, level)) <= _PLAIN_LEAVES:  # noqa: F821
            continue
        for item in level:
            if isinstance(item, (bool, int, float, complex)):  # BUG: np.float64 / np.complex128 subclass float / complex
                continue
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):
                return True
    return False


def _fork() -> Fork:
    return fork("b08", _host={"_has_typed_leaf": _has_typed_leaf})


def target() -> Target:
    return fork_target_full("b08_numpy_float64_taken_as_float", _fork())
