"""b02 (CPU): ``NonUvaBuffer.uva(n)`` refreshes the whole twin and returns its first ``n`` rows.

Where: ``h2d_impl/buffer_utils.py::NonUvaBuffer.uva``.

Change: the two branches merged into one full copy ("one copy, no second slice of ``.cpu``")::

    n = row_count(n, self.cpu.shape[0])                                   # reference
    return self._uva[:n].copy_(self.cpu[:n], non_blocking=True)

    n = row_count(n, self.cpu.shape[0])                                   # bug
    return self._uva.copy_(self.cpu, non_blocking=True)[:n]

The returned rows hold the right values, ``n`` is still checked. But rows ``n`` and on of the
twin are rewritten with whatever ``.cpu`` holds now: a view of them handed out earlier (``uva()``
of all rows, a previous step's longer ``uva(m)``) changes under its reader, where only the first
``n`` rows were to be sent.

Promise broken: h2d_impl/buffer_utils.py ``NonUvaBuffer``: "``uva(n)`` copies the first ``n`` rows
of ``.cpu`` into the twin and returns that slice: the values are the host's at the call";
``uva``: "Copy the first ``n`` rows (all if None) to the twin and return the twin's rows".

Smallest input: ``b = NonUvaBuffer(4, torch.int32, 'cpu'); full = b.uva(); b.np[:] = [1, 2, 3, 4]; b.uva(2); full``.
Reference: ``full == [1, 2, 0, 0]``. Bug: ``full == [1, 2, 3, 4]`` (rows 2-3 sent too).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def uva(self: Any, n: int | None = None) -> torch.Tensor:
    if n is None:
        return self._uva.copy_(self.cpu, non_blocking=True)
    n = row_count(n, self.cpu.shape[0])  # noqa: F821  (the reference module's global)
    return self._uva.copy_(self.cpu, non_blocking=True)[:n]  # BUG (r53 b02): every row sent, not the first n


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_nonuva_rows_by_full_copy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"NonUvaBuffer": {"uva": uva}}),
    )
