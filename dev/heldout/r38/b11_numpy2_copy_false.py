"""b11 (CPU-visible, _host.py ``_numpy_to_tensor``): the copy of layouts torch cannot view asks numpy for ``copy=False``.

What changed: ``np.array(arr, order="C", copy=True)`` became
``np.array(arr, order="C", copy=False)``.

Why an engineer would write it: with numpy 1 semantics ``copy=False`` meant "copy only if
needed", which reads like a free optimisation ("don't copy an array that is already C
order"). In numpy 2 it means "never copy" and raises ``ValueError`` whenever a copy is
needed, which is always the case on this branch (negative strides, a structured array's
field): every such array is refused.

Promise broken: docs/reference.md "Inputs: ... ndarrays in any layout (negative strides,
..., a structured array's field)"; "Where it differs from vLLM: negative-stride, ...,
structured-field arrays: refused by torch.from_numpy | copied"; docstring of
``as_source_tensor``.

Smallest input: ``async_tensor_h2d(np.arange(4)[::-1], device="cpu")``.
Reference: ``tensor([3, 2, 1, 0])``. Bug: ``ValueError: Unable to avoid copy while creating
an array as requested.``
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS  # noqa: F821
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
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
        # Negative strides (e.g. a[::-1]) and strides that are not a multiple of the item
        # size (a field of a structured array): torch tensors cannot express them.
        arr = np.array(arr, order="C", copy=False)  # BUG: numpy 2: copy=False means "never copy" -> ValueError here
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def _fork() -> Fork:
    return fork("b11", _host={"_numpy_to_tensor": _numpy_to_tensor})


def target() -> Target:
    f = _fork()
    return make_target(
        "b11_numpy2_copy_false",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
