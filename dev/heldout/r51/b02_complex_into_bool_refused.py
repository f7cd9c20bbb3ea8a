"""b02 (CPU): complex data into ``dtype=torch.bool`` refused as "the imaginary part would be lost".

Where: ``h2d_impl/_host.py::check_representable`` (``h2d._prepare`` calls it for every route).

Change (one condition)::

    if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:  # reference
    if source.is_complex() and not dtype.is_complex:                               # bug: "complex only into complex"

A tidy-up that reads the bool exemption as an oversight: a complex value into bool loses
nothing (torch's rule is ``z != 0``, both parts read: ``1j`` is True), and the reference's own
docstring lists "anything -> bool" as valid. Now every complex source (list, array, tensor,
scalar, empty ones too) into bool raises ``TypeError``; complex into real and integer dtypes
was refused before and still is, with the same type.

Promise broken: h2d_impl/_host.py ``check_representable`` docstring: "anything -> bool, and
conversions into floating dtypes follow torch (nonzero is True ...)"; README, values: "result
equals `data` converted to the resolved dtype ... every dtype"; README, dtype: "`dtype=` wins".

Smallest input: ``async_tensor_h2d([1j, 0j], dtype=torch.bool, device='cpu')``.
Reference: ``tensor([True, False])``. Bug: ``TypeError: data is complex (torch.complex128) but
dtype=torch.bool is not: the imaginary part would be lost``.
"""

from __future__ import annotations

import torch
from plumbing import Raw, bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host

_REF = _host.check_representable


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    if source.is_complex() and not dtype.is_complex:  # BUG (r51 b02): the bool exemption dropped
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost")
    return _REF(source, dtype)  # the rest of the reference check, unchanged


def target() -> Target:
    # Raw: kept with this module's globals (it defers to the reference function); h2d's import is re-pointed to it
    f = fork("b02", _host={"check_representable": Raw(check_representable)})
    return make_target(
        "b02_complex_into_bool_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
