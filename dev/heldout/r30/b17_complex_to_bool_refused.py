"""Complex data into ``dtype=torch.bool`` is refused with ``TypeError`` ("the imaginary part would be lost").

``check_representable`` refuses complex -> any non-complex dtype, the author having dropped
the ``dtype is not torch.bool`` exception as an oversight. Converting to bool loses
nothing that matters (nonzero is True, for the real and imaginary parts alike), and the
reference follows torch: ``async_tensor_h2d([1j], dtype=torch.bool, device="cpu")`` is
``tensor([True])``; a complex ndarray or tensor into a bool ``out`` likewise.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import _host, h2d

from ._common import make_target
from ._patch import entry_points, rebind

_reference_check = _host.check_representable


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """The reference's check, with complex -> bool refused like complex -> real."""
    if source.is_complex() and not dtype.is_complex:  # BUG: ``and dtype is not torch.bool`` dropped
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost")
    _reference_check(source, dtype)


def target():
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, check_representable=check_representable))
    return make_target("b17-complex-to-bool-refused", fn=fn, cpu_variant=cpu)
