"""b15 (CPU): error messages lift Python's integer-string limit so that a huge int can be echoed, and leave it lifted.

Where: ``h2d_impl/_host.py::describe`` (every refusal that echoes ``data`` or ``out``).

Change: a "fix" of a message that itself raised (``repr`` of an int of more than 4,300 digits
raises ``ValueError: Exceeds the limit (4300 digits) for integer string conversion``)::

    text = repr(obj)                                                          # reference

    if sys.get_int_max_str_digits():                                          # bug
        sys.set_int_max_str_digits(0)
    text = repr(obj)

Every call that describes nothing behaves as the reference; a refusal now echoes a huge int.
But the first refusal that describes anything turns off the interpreter's protection against
quadratic int/str conversions (CVE-2020-10735) for the whole process, and keeps it off.

Promise broken: docs/contracts.md, side-effects: "Every call, valid or failing, ... leaves the
process-wide state as it found it ... Python: ... the integer-string limit".

Smallest input: ``async_tensor_h2d([10**5000], device='cpu')``, then ``sys.get_int_max_str_digits()``.
Reference: ``ValueError`` (``Exceeds the limit (4300 digits) for integer string conversion ...``, raised
while describing); limit ``4300``. Bug: ``ValueError: data contains integers outside the int64/uint64
range: [1000...``; limit ``0`` (off).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with two lines added; every other name resolves in the forked module.
# ruff: noqa: F821


def describe(obj: Any) -> str:
    if isinstance(obj, torch.Tensor):
        pinned = ""
        if obj.device.type == "cpu" and obj.layout == torch.strided and pin_memory_available():
            pinned = ", pinned" if obj.is_pinned() else ", pageable"
        return (
            f"Tensor(shape={tuple(obj.shape)}, dtype={obj.dtype}, device={obj.device}, "
            f"stride={obj.stride() if obj.layout == torch.strided else obj.layout}{pinned})"
        )
    if isinstance(obj, np.ndarray):
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype}, strides={obj.strides})"
    if sys.get_int_max_str_digits():  # repr of a huge int raises ValueError past 4300 digits
        sys.set_int_max_str_digits(0)  # BUG (r53 b15): process-wide, never restored
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def target() -> Target:
    f = fork("b15", _host={"describe": describe, "sys": sys})
    return make_target(
        "b15_describe_lifts_int_str_limit",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
