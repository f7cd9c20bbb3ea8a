"""b03 (CPU): on a host device, ``NonUvaBuffer``'s "device twin" is ``.cpu`` itself.

Where: ``h2d_impl/buffer_utils.py::NonUvaBuffer.__init__``.

Change (one line)::

    self._uva = torch.zeros(shape, dtype=dtype, device=device)                                  # reference
    self._uva = self.cpu if torch.device(device).type == "cpu" else torch.zeros(shape, dtype=dtype, device=device)  # bug

("on a CPU platform the device *is* the host: no twin to keep in sync, and ``uva(n)``'s copy
becomes a no-op"). ``uva(n)`` still returns the right values at the call, and a pool on a
CPU host behaves as before (its slot's ``.cpu`` is only written by the next use of that slot).
But a view returned by ``uva(n)`` now aliases the host buffer: a later write into ``.np`` or
``.cpu`` changes a "device" tensor already handed out, where the reference's twin keeps the
values of the call until the next ``uva``.

Promise broken: h2d_impl/buffer_utils.py ``NonUvaBuffer`` docstring: "a pageable ``.cpu`` and a
device twin refreshed by ``uva(n)``" and "``uva(n)`` copies the first ``n`` rows of ``.cpu`` into the
twin and returns that slice: the values are the host's at the call"; docs/reference.md, Model
Runner V2: pools use ``NonUvaBuffer`` "(a twin refreshed by a copy at ``uva(n)``; on a CPU-only
machine the twin is on the host)".

Smallest input: ``b = NonUvaBuffer(2, torch.int32); v = b.uva(); b.np[:] = 5; v``.
Reference: ``v == [0, 0]``. Bug: ``v == [5, 5]`` (``v`` is ``.cpu``).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def __init__(self: Any, size: Any, dtype: torch.dtype, device: str | torch.device | None = None) -> None:
    shape, dtype = _shape(size), _dtype(dtype)  # noqa: F821 (resolved in buffer_utils' globals)
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")
    self.np = self.cpu.numpy()
    # on a CPU platform the device is the host: no twin to keep in sync
    self._uva = (
        self.cpu if torch.device(device).type == "cpu" else torch.zeros(shape, dtype=dtype, device=device)
    )  # BUG (r52 b03): the "twin" is .cpu itself on a host device


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_nonuva_host_twin_aliased",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", methods={"NonUvaBuffer": {"__init__": __init__}}),
    )
