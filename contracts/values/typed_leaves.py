"""``values`` for numpy scalars wherever they sit (bare, in lists, tuples, nested, first or last of 71): a table of every
scalar kind x every place, each keeping its dtype as ``torch.tensor`` infers it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, require_device
from h2d_contracts.harness.target import Target

from .checks import check_values

#: Numpy scalars of every kind (found by held-out testing: a tuple of numpy scalars and a bare
#: numpy scalar both lost their dtype unnoticed).
TYPED_LEAVES = (
    np.float16(2.5),
    np.float32(-1.5),
    np.float64(0.1),
    np.int8(-3),
    np.int16(300),
    np.int32(-7),
    np.uint8(200),
    np.bool_(True),
    np.complex64(1 - 2j),
)


#: Where a typed leaf sits: bare, alone or beside a Python number in a list or tuple, in a
#: nested list or tuple, and first or last among 70 Python numbers (a scan that looks only at a
#: prefix, a top-level list, or the first leaf misses it).
TYPED_LEAF_PLACES: dict[str, Callable[[Any], Any]] = {
    "bare": lambda x: x,
    "[x]": lambda x: [x],
    "[1, x]": lambda x: [1, x],
    "[x, 1]": lambda x: [x, 1],
    "(1, x)": lambda x: (1, x),
    "[[1], [x]]": lambda x: [[1], [x]],
    "[(1,), (x,)]": lambda x: [(1,), (x,)],
    "((x, 1), (1, 1))": lambda x: ((x, 1), (1, 1)),
    "[1] * 70 + [x]": lambda x: [1] * 70 + [x],
    "[x] + [1] * 70": lambda x: [x] + [1] * 70,
}


@prop("values")
def prop_values_typed_leaves(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: numpy scalars keep their dtype wherever they sit (bare, in lists, tuples, nested, first or last of 71).

    Deterministic (a table: every numpy scalar kind x every place): the result's dtype is
    ``torch.tensor(data)``'s inference (the scalar's own dtype when bare), its values exact.
    """
    require_device(target, device, "values")
    del overrides
    rows = Rows("typed leaves table")
    for leaf in TYPED_LEAVES:
        for place in TYPED_LEAF_PLACES.values():
            data = place(leaf)
            if not isinstance(data, np.generic):
                try:
                    torch.tensor(data)
                except TypeError:  # torch.tensor itself refuses (np.bool_ beside a Python int): no dtype to follow
                    continue
            rows.row(check_values, target, data, {"device": device})
    rows.finish()
