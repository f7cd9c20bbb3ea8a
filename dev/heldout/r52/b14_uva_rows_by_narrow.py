"""b14 (GPU-only): ``UvaBuffer.uva(n)`` takes its rows with ``narrow`` instead of the bounds-checked ``row_count``.

Where: ``h2d_impl/buffer_utils.py::UvaBuffer.uva``.

Change (one line: "narrow is a view and checks the bound itself")::

    return self._uva[: row_count(n, self.cpu.shape[0])]     # reference
    return self._uva.narrow(0, 0, operator.index(n))        # bug

Every ``n`` in ``[0, rows]`` (ints, numpy ints, 0-d integer tensors) gives the same view. Out of
range, ``narrow`` raises ``RuntimeError`` ("start (0) + length (5) exceeds dimension size (4)",
"narrow(): length must be non-negative"), which names no ``n`` and is neither ``IndexError`` nor
``TypeError``; and ``operator.index(True)`` is 1, so ``uva(True)`` returns one row where a bool is
refused. ``UvaBuffer`` exists only where UVA is available (a CUDA device and pinned memory):
on a CPU-only host its constructor raises ``RuntimeError`` for both, and pools use
``NonUvaBuffer``, so behaviour there is identical.

Promise broken: h2d_impl/buffer_utils.py ``UvaBuffer.uva`` docstring: "IndexError/TypeError naming
``n`` past ``[0, rows]``"; docs/contracts.md, uva: "``n`` past the rows, negative, a float or a bool
raises ``IndexError`` or ``TypeError`` naming ``n``".

Smallest input (CUDA): ``UvaBuffer(4, torch.int32).uva(5)``.
Reference: ``IndexError: n=5 is outside [0, 4]``. Bug: ``RuntimeError: start (0) + length (5) exceeds dimension size (4).``
(``uva(-1)``: ``IndexError`` vs ``RuntimeError``; ``uva(True)``: ``TypeError`` vs a 1-row view.)
CPU-only host: ``UvaBuffer(4, torch.int32)`` raises ``RuntimeError: UVA is not available`` for both.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def uva(self: Any, n: int | None = None) -> torch.Tensor:
    if n is None:
        return self._uva
    return self._uva.narrow(0, 0, operator.index(n))  # BUG (r52 b14): no row_count: torch's RuntimeError, bools taken


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_uva_rows_by_narrow",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", methods={"UvaBuffer": {"uva": uva}}),
    )
