"""b11 (CPU): ``CpuGpuBuffer``'s row count tested by truthiness: ``copy_to_gpu(0)`` / ``copy_to_cpu(0)`` copy every row.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer._rows`` (both copies call it).

Change (one condition)::

    return None if n is None else row_count(n, self.capacity, ...)   # reference
    return None if not n else row_count(n, self.capacity, ...)       # bug: "no n: the whole buffer"

``not n`` is true for ``None`` and for every zero: ``0``, ``np.int64(0)``, a 0-d ``torch.tensor(0)``,
and ``False``. So an engine's empty step (``copy_to_gpu(num_reqs)`` with no request) copies the
whole buffer, stale rows included, and returns ``.gpu`` itself (``capacity`` rows) where it
asked for an empty view; ``copy_to_cpu(0)`` overwrites ``.cpu`` rows the host is filling.
``copy_to_gpu(False)`` is taken as "all rows" instead of refused. Every ``n >= 1`` is unchanged.

Promise broken: h2d_impl/buffer.py ``copy_to_gpu`` docstring: "Copy rows ``[0, n)`` ... Rows from
``n`` on are not touched ... Returns: ``.gpu[:n]`` (a view of shape ``(n, *size[1:])``)";
README, buffer: "`copy_to_gpu(n)` / `copy_to_cpu(n)` copy exactly rows `[0, n)`"; docs/contracts.md,
buffer: "a non-integer `n` (a bool, ...) `TypeError`, naming `n`, copying nothing".

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.np[:] = 7;
r = b.copy_to_gpu(0); (r, b.gpu)``.
Reference: ``r`` of shape ``(0,)``, ``.gpu == [0, 0]``. Bug: ``r`` is ``.gpu``, shape ``(2,)``,
``.gpu == [7, 7]``.
"""

from __future__ import annotations

from typing import Any

from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def _rows(self: buffer.CpuGpuBuffer, n: Any) -> int | None:
    return None if not n else row_count(n, self.capacity, "the buffer's row capacity")  # noqa: F821  BUG (r51 b11)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    _rows = rebind(_rows, buffer)


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_buffer_zero_rows_as_all",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b11"),
    )
