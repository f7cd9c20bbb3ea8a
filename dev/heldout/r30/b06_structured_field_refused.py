"""Arrays whose strides are not a multiple of the item size (a structured array's field) are refused.

``_numpy_to_tensor`` makes a fresh C-order copy only for negative strides ("the layouts
torch cannot view"), forgetting strides that are not a multiple of the item size. A field
of a structured array (``np.zeros(2, dtype=[("a", "<i4"), ("b", "<i2")])["a"]``, stride 6)
reaches ``torch.from_numpy``, which raises ``ValueError: given numpy array strides not a
multiple of the element byte size``. Documented input: "a structured array's field",
copied.
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
    """The reference's ``_numpy_to_tensor`` copying only arrays with negative strides."""
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
    if any(s < 0 for s in arr.strides):  # BUG: strides that are not a multiple of the item size pass
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
    return make_target("b06-structured-field-refused", fn=fn, cpu_variant=cpu)
