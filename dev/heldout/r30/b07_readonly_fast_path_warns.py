"""Read-only 1-D arrays take the ``torch.from_numpy`` fast path, which warns.

The fast path of ``_numpy_to_tensor`` drops its ``arr.flags.writeable`` test ("from_numpy
views read-only arrays just as well; one test less per call"). It does view them, but
torch emits ``UserWarning: The given NumPy array is not writable ...`` for each: a
read-only native 1-D array (``np.frombuffer(...)``, an array with ``writeable=False``, a
memory-mapped file opened read-only) gives the right result with a warning, where the
reference silences it (documented: a read-only ndarray as the first call gives the right
result and no warning).
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host, h2d
from h2d_contracts.h2d_impl._host import _NUMPY_KINDS, _VIEWABLE_CHARS

from ._common import make_target
from ._patch import entry_points, rebind


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """The reference's ``_numpy_to_tensor`` whose fast path ignores the writeable flag."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative  # BUG: the ``arr.flags.writeable`` test is gone: read-only arrays warn below
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:
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


def target():
    source = rebind(_host.as_source_tensor, _numpy_to_tensor=_numpy_to_tensor)
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, as_source_tensor=source))
    return make_target("b07-readonly-fast-path-warns", fn=fn, cpu_variant=cpu)
