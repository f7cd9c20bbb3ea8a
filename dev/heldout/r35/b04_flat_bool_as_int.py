"""b04 (CPU): the flat-list fast path matches element types by ``issubclass``: bool lists become int64.

The change: in ``_host._flat_list``, ``spec = _FLAT_KINDS.get(kinds.pop())`` (exact type)
became a lookup by ``issubclass`` over ``_FLAT_KINDS`` (int first).

Why an engineer writes it: token ids often arrive as ``IntEnum`` members or other ``int``
subclasses, which missed the fast path (one ``np.array`` call) and took the slow general
route; matching subclasses lets them in. But ``bool`` is a subclass of ``int``, and
``int`` comes first in the table.

What breaks: lists follow ``torch.tensor``'s dtype inference (docs/reference.md; the
values and dtype contracts): ``async_tensor_h2d([True, False], device="cpu")`` is
``torch.bool`` in the reference and ``torch.int64`` ``[1, 0]`` here.
"""

from __future__ import annotations

import numpy as np
import torch

from ._common import fork, fork_target


def _flat_list(data):
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    spec = next((s for k, s in _FLAT_KINDS.items() if issubclass(kind, k)), None)  # BUG: bool is an int subclass
    if spec is None:
        return None
    try:
        arr = np.array(data, dtype=spec[0])
    except OverflowError:
        return None
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def target():
    return fork_target("b04-flat-bool-as-int", fork("b04", _host={"_flat_list": _flat_list}))
