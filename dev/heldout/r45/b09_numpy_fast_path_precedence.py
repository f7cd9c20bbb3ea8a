"""b09 - the numpy fast path's condition loses its parentheses: ``and`` binds tighter than ``or``.

Where: ``_host._numpy_to_tensor`` (the one-test fast path for writeable, native, viewable 0-d
or unit-stride 1-D arrays).

Change (old -> new)::

    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
    ->
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and arr.ndim == 0
        or arr.ndim == 1 and arr.strides[0] == dt.itemsize  # BUG: parentheses dropped when the line was split
    ):

Why an engineer writes it: reflowing the condition to one clause per line and removing the
"noisy" nested parentheses; every common input (a writeable native int/float array, 0-d or
1-D) still takes the fast path and gives the same tensor. But the condition now reads
``(viewable and native and writeable and 0-d) or (1-D and unit stride)``: every 1-D
unit-stride array reaches ``torch.from_numpy`` directly, whatever its dtype, byte order or
writeability, skipping the kind check, the byte swap and the read-only warning filter.

Promise broken: docs/reference.md "Inputs" / "Where it differs from vLLM" (non-native byte
order arrays are copied, where ``torch.from_numpy`` refuses them), docs/contracts.md "values"
(byte-swapped and read-only layouts; a valid call behaves the same with every warning an error;
``prop_values_first_call``: a read-only ndarray, no warning) and "bad-input" (``object-array``,
``string-array``, ``datetime-array``, ``longdouble-array``: a ``TypeError`` whose message names
``data``: torch's "can't convert np.ndarray of type ..." names nothing).

Smallest input (CPU)::

    async_tensor_h2d(np.array([1, 2], dtype=">i4"), device="cpu")

Reference: ``tensor([1, 2], dtype=torch.int32)``.
Bug: ``ValueError: given numpy array has byte order different from the native byte order ...``.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS  # noqa: F821
        and dt.isnative
        and arr.flags.writeable
        and arr.ndim == 0
        or arr.ndim == 1
        and arr.strides[0] == dt.itemsize  # BUG: was "and (arr.ndim == 0 or (arr.ndim == 1 and ...))"
    ):
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    return fork_target_full(
        "b09_numpy_fast_path_precedence", fork("b09", _host={"_numpy_to_tensor": _numpy_to_tensor})
    )
