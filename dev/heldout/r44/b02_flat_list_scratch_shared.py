"""b02 (CPU, threads): flat lists are converted into one process-wide scratch array per dtype.

Where: ``_host._flat_list`` (the hot path of flat int/float/bool lists: token ids,
positions, slot mappings), plus a new module-level ``_SCRATCH`` dict in ``_host``.

The change::

    arr = np.array(data, dtype=spec[0])
    ->
    buf = _SCRATCH.get(spec[0])
    if buf is None or buf.size < len(data):
        buf = _SCRATCH[spec[0]] = np.empty(max(len(data), 4096), dtype=spec[0])
    buf[: len(data)] = data
    arr = buf[: len(data)]

Why an engineer writes it: ``np.array(list)`` allocates a fresh array on every call of
the hottest path; a grow-only scratch per dtype removes the allocation, and every
single-threaded test still passes, because the source is only read and is copied into
a fresh result (host) or into pinned staging (CUDA) before the call returns. The
scratch is shared by every thread of the process: between one thread's fill and its
copy (torch releases the GIL inside ``copy_``), another thread refills it, and the first
thread uploads the other thread's values.

Promise broken: README contract table, ``concurrency``: "8 threads x 10,000 calls give
exactly the right result every time"; docs/reference.md *Result*: "a new contiguous
tensor ... never sharing memory with data" holds, but the values are not ``data``'s
(``values``: "result equals data converted to the resolved dtype").

Smallest input: 4 threads (a barrier, ``sys.setswitchinterval(1e-6)``), each calling
``async_tensor_h2d(list(range(k * 1000, k * 1000 + 64)), device="cpu")`` 2,000 times
and comparing the result with its own list.
Reference: 0 wrong results. Bug: wrong results (another thread's list) in every run
seen (about 600-800 of the 8,000 on the 2-core machine).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    """``(source, own_dtype)`` of a non-empty flat list or tuple of one exact type among int, float and bool; None otherwise."""
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    spec = _FLAT_KINDS.get(kinds.pop())  # noqa: F821 (bound in the fork)
    if spec is None:
        return None
    # BUG: a process-wide grow-only scratch per dtype instead of a fresh array per call
    n = len(data)
    buf = _SCRATCH.get(spec[0])  # noqa: F821
    if buf is None or buf.size < n:
        buf = _SCRATCH[spec[0]] = np.empty(max(n, 4096), dtype=spec[0])  # noqa: F821
    try:
        buf[:n] = data
    except OverflowError:
        return None
    arr = buf[:n]
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def _fork() -> Fork:
    return fork("b02", _host={"_flat_list": _flat_list, "_SCRATCH": {}})


def target() -> Target:
    f = _fork()
    return make_target(
        "b02_flat_list_scratch_shared",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
