"""b14 (CPU-visible): the read-only-array warning is silenced by a process-wide filter installed at import.

Where: ``h2d_impl/_host.py``, ``_numpy_to_tensor`` (the read-only branch) and the module's
top level.

Change: the per-call ``with warnings.catch_warnings(): warnings.simplefilter("ignore",
UserWarning)`` around ``torch.from_numpy(arr)`` is replaced by one module-level
``warnings.filterwarnings("ignore", message="The given NumPy array is not writable",
category=UserWarning)``, run when the module is imported (here: when the target is built).

Why plausible: ``catch_warnings`` copies the whole filter list and is not thread-safe; a
single, narrow filter (this exact message only) set once at import looks cheaper, safer and
better targeted than the blanket ``UserWarning`` ignore inside the call. Each call now
leaves the filters alone, so the per-call side-effects check sees nothing, but the process
has a filter it never asked for: the caller's own ``torch.from_numpy`` of a read-only
array no longer warns, in any module, for the life of the process.

Promise broken: docs/reference.md "Process-wide state: ... warnings are filtered inside
``warnings.catch_warnings()`` only"; README side-effects: "Python's warning filters" are
left as found.

Smallest input: in a fresh interpreter, build the target, then
``torch.from_numpy(ro)`` with ``ro = np.arange(3); ro.flags.writeable = False`` (caller
code, no h2d call).
Reference: ``warnings.filters`` unchanged by building the target; the caller gets torch's
"The given NumPy array is not writable" UserWarning.
Bug: ``warnings.filters`` gained an ``ignore`` entry; the caller's warning is swallowed.
(Every call's values are still right.)
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full

_MESSAGE = "The given NumPy array is not writable"


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
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
        # BUG: no catch_warnings here; the module-level filter (installed at import) silences torch's warning
        return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def _fork() -> Fork:
    # the module's top level, run when it is imported (the target is built)
    warnings.filterwarnings("ignore", message=_MESSAGE, category=UserWarning)
    return fork("b14", _host={"_numpy_to_tensor": _numpy_to_tensor})


def target() -> Target:
    return fork_target_full("b14_readonly_filter_at_import", _fork())
