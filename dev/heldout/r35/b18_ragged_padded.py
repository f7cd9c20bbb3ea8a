"""b18 (CPU): ragged nested lists are padded with zeros, in the caller's own lists.

The change: in ``_host._list_to_array``, the ``except ValueError`` for ragged nesting
(numpy >= 1.24 refuses to build an array) pads every row to the longest one with 0 and
retries, instead of raising ``ValueError``.

Why an engineer writes it: block tables are ragged by nature (one row of block ids per
request, each its own length) and every caller was padding them before the call; padding
"where numpy fails anyway" saves them the work, and ``row.extend`` avoids copying the rows.

What breaks: ragged lists raise ``ValueError`` naming ``data`` (bad-input kind
``ragged-list``), and "``data`` is only read: never padded, rewritten or byte-swapped in
place" (docs/reference.md; input-untouched contract). ``d = [[1, 2], [3]];
async_tensor_h2d(d, device="cpu")`` returns ``[[1, 2], [3, 0]]`` and leaves ``d == [[1, 2],
[3, 0]]``. (Mixed nesting such as ``[[0], 1]`` now raises ``TypeError`` from ``len(1)``.)
"""

from __future__ import annotations

import numbers

import numpy as np

from ._common import fork, fork_target


def _list_to_array(data):
    try:
        arr = np.asarray(data)
    except ValueError:  # ragged nesting: numpy>=1.24 raises instead of making objects
        width = max(len(row) for row in data)  # BUG: pad the rows in place and retry instead of raising ValueError
        for row in data:
            row.extend([0] * (width - len(row)))
        arr = np.asarray(data)
    except (TypeError, RuntimeError) as exc:
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
        for leaf in np.asarray(data, dtype=object).ravel():
            if isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool) and abs(int(leaf)) >= 2**63:
                raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target():
    return fork_target("b18-ragged-padded", fork("b18", _host={"_list_to_array": _list_to_array}))
