"""b15 (CPU): the exact-int rebuild of mixed int/float lists turns each float into an int with Python's ``round``.

Where: ``h2d_impl/_host.py::exact_integer_list`` (``h2d._prepare``: lists and tuples mixing ints past 2**53 with
floats, into an integer dtype; both entry points).

Change: the float leaf's conversion ("``int(f)`` drops the fraction; take the nearest int, the float may be
``2.9999999``")::

    exact.append(int(f))  # toward zero                                                    # reference

    exact.append(round(f))  # the nearest int                                              # bug

Everywhere else a float becomes an int by truncation toward zero (C's cast, numpy's ``astype``, ``Tensor.to``, the
reference's own range rule), and so does this path's own fallback: a list whose ints fit float64 takes the plain
float64 route and truncates. ``round`` rounds to the nearest int, and Python 3's ``round`` breaks ties to the even
int: ``round(0.5) == 0`` and ``round(-0.5) == 0`` agree with truncation, ``round(2.5) == 2`` too, but ``round(1.5)
== 2``, ``round(0.7) == 1``, ``round(-1.5) == -2``. One list then converts its floats by two rules depending on
whether an int elsewhere in it passes 2**53 (tests of this path that use ``0.5``, the usual fraction, see no
difference).

Promise broken: h2d_impl/_host.py ``check_representable``: "float -> integer: the conversion of C, numpy
(``astype``) and ``Tensor.to``: the value is truncated toward zero (``[1.5, -2.7] -> [1, -2]``)"; ``exact_integer_list``:
"each float truncated toward zero (what the conversion from float64 does)".

Smallest input: ``async_tensor_h2d([2**53 + 1, 1.5], dtype=torch.int64, device='cpu')``.
Reference: ``tensor([9007199254740993, 1])``. Bug: ``tensor([9007199254740993, 2])`` (``[2**53 + 1, 0.5]``: ``0``
for both).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def exact_integer_list(data: Any, source: torch.Tensor) -> torch.Tensor | None:
    """An int64 tensor of a list that mixes floats with ints a float64 cannot hold (past 2**53), for an integer dtype."""
    if not source.numel() or not bool((source.abs() >= 2.0**53).any()):
        return None
    leaves = np.asarray(data, dtype=object).ravel()
    exact: list[int] = []
    inexact = False
    for v in leaves:
        if isinstance(v, numbers.Integral):
            exact.append(int(v))
            inexact = inexact or abs(exact[-1]) > 2**53
            continue
        f = float(v)
        if not np.isfinite(f) or abs(f) >= 2.0**63:
            return None
        exact.append(round(f))  # BUG (r59 b15): the nearest int (ties to even), not toward zero
    return torch.tensor(exact, dtype=torch.int64).reshape(source.shape) if inexact else None


def target() -> Target:
    f = fork("b15", _host={"exact_integer_list": exact_integer_list})
    return make_target(
        "b15_exact_ints_python_round",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
