"""b09 (CPU-visible, _host.py ``_numpy_to_tensor``): the warnings guard for read-only arrays is a module-level object.

What changed: ``with warnings.catch_warnings():`` (a new guard per call) became
``with _READONLY_QUIET:``, where ``_READONLY_QUIET = warnings.catch_warnings()`` is created
once at import.

Why an engineer would write it: "don't build a context manager on every call of the hot
path; hoist the constant". ``warnings.catch_warnings`` is single-use: ``__enter__`` raises
``RuntimeError("Cannot enter catch_warnings() twice")`` once it has been entered, even after a
clean exit. The first read-only array of the process works; every later one fails (and two
threads entering it at once would also clobber each other's filters).

Promise broken: read-only ndarrays are accepted (docs/reference.md "Inputs: ... ndarrays in
any layout (... read-only ...)"; docstring of ``async_tensor_h2d``: "a ``numpy.ndarray`` in
any layout (negative strides, Fortran order, broadcast, non-native byte order, read-only)";
contracts.md values: every layout, ``broadcast`` arrays are read-only too). An interplay of
consecutive calls: the failure appears from the second such call on.

Smallest input: ``a = np.arange(3); a.flags.writeable = False``; call
``async_tensor_h2d(a, device="cpu")`` twice.
Reference: ``tensor([0, 1, 2])`` both times. Bug: the first call ``tensor([0, 1, 2])``, the
second ``RuntimeError: Cannot enter catch_warnings() twice``.
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
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        # torch warns about read-only arrays because a tensor could write through; the
        # reference only ever reads from the source.
        with _READONLY_QUIET:  # BUG: one catch_warnings object for the process: single-use, so the 2nd entry raises
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def _fork() -> Fork:
    # the hoisted guard, as a constant of the (forked) _host module
    return fork("b09", _host={"_numpy_to_tensor": _numpy_to_tensor, "_READONLY_QUIET": warnings.catch_warnings()})


def target() -> Target:
    f = _fork()
    return make_target(
        "b09_readonly_quiet_hoisted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
