"""A read-only array is made writeable for ``torch.from_numpy`` and made read-only again only if that succeeds.

To avoid torch's "not writable" warning without a ``warnings.catch_warnings`` block (not
thread-safe), ``_numpy_to_tensor`` sets ``arr.flags.writeable = True`` on a read-only
array, views it, and sets the flag back, but not in a ``finally``: when
``torch.from_numpy`` raises (a read-only ``np.longdouble`` array: ``TypeError``, as
documented) the caller's array is left writeable. Documented: the caller's data, array
flags included, is unchanged after any call, valid or failing. Valid calls restore the flag.
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
    """The reference's ``_numpy_to_tensor`` flipping the writeable flag instead of silencing the warning."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
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
        try:
            arr.flags.writeable = True  # we only read: silences torch's warning without a global filter
        except ValueError:  # a view of read-only memory (np.broadcast_to): cannot be flipped
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return torch.from_numpy(arr)
        tensor = torch.from_numpy(arr)  # BUG: raises for longdouble, leaving the caller's array writeable
        arr.flags.writeable = False
        return tensor
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target():
    source = rebind(_host.as_source_tensor, _numpy_to_tensor=_numpy_to_tensor)
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, as_source_tensor=source))
    return make_target("b19-readonly-flag-left-on-error", fn=fn, cpu_variant=cpu)
