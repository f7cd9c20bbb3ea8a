"""b14 (CPU): the exact-int rebuild of mixed int/float lists tests ``v > 2**53``, not ``abs(v) > 2**53``.

Where: ``h2d_impl/_host.py::exact_integer_list`` (``h2d._prepare``: lists and tuples of ints and floats into an
integer dtype, both entry points).

Change: the "an int the float64 source rounded" flag written without ``abs`` ("token ids, positions and offsets are
non-negative; one call less per leaf")::

    inexact = inexact or abs(exact[-1]) > 2**53                                          # reference

    inexact = inexact or exact[-1] > 2**53                                               # bug

numpy builds a list mixing ints and floats as float64, rounding every int past 2**53 in magnitude; the rebuild keeps
them exact, but only when the flag says an int was rounded. Negative ints past -2**53 no longer set it: the function
returns None and the float64 source (already rounded) is converted, so ``-(2**53 + 1)`` arrives as
``-9007199254740992``, silently. The positive side is unchanged, and so is every list without a float (the
rebuild is only for float64 sources) and every list of magnitudes up to 2**53. Negative 64-bit values are real
payloads: hashes, signed offsets, sentinel ids near ``-2**63``.

Promise broken: docs/contracts.md, values: "Integer conversions are exact to the ends of the range ... with ... 0
and +-(2**53 + 1) ...: and lists mixing such ints with floats into int64, each int kept exactly"; h2d_impl/_host.py
``exact_integer_list``: "Here each int is kept exactly".

Smallest input: ``async_tensor_h2d([-(2**53 + 1), 0.5], dtype=torch.int64, device='cpu')``.
Reference: ``tensor([-9007199254740993, 0])``. Bug: ``tensor([-9007199254740992, 0])``.
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
            inexact = inexact or exact[-1] > 2**53  # BUG (r59 b14): negative ints past -2**53 never set the flag
            continue
        f = float(v)
        if not np.isfinite(f) or abs(f) >= 2.0**63:
            return None
        exact.append(int(f))  # toward zero
    return torch.tensor(exact, dtype=torch.int64).reshape(source.shape) if inexact else None


def target() -> Target:
    f = fork("b14", _host={"exact_integer_list": exact_integer_list})
    return make_target(
        "b14_exact_ints_sign_blind",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14"),
    )
