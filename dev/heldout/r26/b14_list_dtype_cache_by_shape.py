"""The inferred dtype of a list (dtype=None, no out) is cached by its nesting lengths and
the type of its first leaf ("engines send same-shaped lists every step; skip the leaf
scan"). After [1, 2, 3] (int64), [1, 2.5, 3] is converted as int64 and truncated."""

from __future__ import annotations

import threading

from h2d_contracts import h2d_impl

from ._common import make_target

_DTYPES: dict[tuple, object] = {}
_LOCK = threading.Lock()


def _key(data):
    lens = []
    node = data
    while type(node) in (list, tuple):
        lens.append(len(node))
        if not node:
            return None
        node = node[0]
    return (type(data), tuple(lens), type(node))  # BUG: the first leaf stands for all


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if dtype is not None or out is not None or type(data) not in (list, tuple):
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    key = _key(data)
    cached = _DTYPES.get(key) if key is not None else None
    if cached is not None:
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=cached)
    result = h2d_impl.async_tensor_h2d(data, device=device)
    if key is not None:
        with _LOCK:
            if len(_DTYPES) < 4096:
                _DTYPES[key] = result.dtype
    return result


def target():
    return make_target("b14-list-dtype-cache-by-shape", fn=async_tensor_h2d)
