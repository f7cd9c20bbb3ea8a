"""Floats going into an integer dtype are rounded to the nearest integer (``torch.round``) after validation.

An engineer guarding against positions computed in floating point ("2.9999998 must give
3") adds ``source = source.round()`` once the arguments are validated. The documented
conversion truncates toward zero (``[1.5, -2.7] -> [1, -2]``): here ``[1.5]`` into int32
gives 2, ``[-2.7]`` gives -3, and because the range check ran on the unrounded values,
``[127.5]`` into int8 (valid: 127) rounds to 128 and wraps to -128.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import h2d
from h2d_contracts.h2d_impl._host import _INTEGER_DTYPES

from ._common import make_target
from ._patch import entry_points

_reference_prepare = h2d._prepare


def _prepare(data, device, dtype, out, *, cpu_only):
    source, dtype, target = _reference_prepare(data, device, dtype, out, cpu_only=cpu_only)
    if source.is_floating_point() and dtype in _INTEGER_DTYPES:
        source = source.round()  # BUG: round half to even, where C, numpy and Tensor.to truncate
    return source, dtype, target


def target():
    fn, cpu = entry_points(prepare=_prepare)
    return make_target("b02-float-to-int-rounded", fn=fn, cpu_variant=cpu)
