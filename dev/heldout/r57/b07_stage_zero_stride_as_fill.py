"""b07 (CPU): a host result whose source has a zero stride is made as a fill of the source's first element.

Where: ``h2d_impl/h2d.py::_stage`` (every result made without ``out`` for a host target: ``async_tensor_h2d(...,
device='cpu')`` and the CPU variant).

Change: a shortcut for broadcast inputs ("a stride-0 source is one value repeated (``torch.tensor(0).expand(n)``,
``np.broadcast_to(pad_id, shape)``, attention-mask fills): one ``torch.full``, not a copy of ``n`` repeats")::

    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)                 # reference
    return _host_copy(staging, source)

    if source.numel() > 1 and 0 in source.stride():                                               # bug (first)
        return torch.full(source.shape, source.reshape(-1)[0].item(), dtype=dtype, device="cpu", pin_memory=pin)
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)

The shortcut is right for the case it was written for, a scalar expanded to any shape (every stride 0), but
its test accepts any zero stride. A column expanded across a row (``t[:, None].expand(n, k)``, strides ``(1, 0)``)
or a row broadcast down (``np.broadcast_to(row, (n, k))``, strides ``(0, 8)``) repeats more than one value, and
all of them become the first. (Even a size-1 dimension with a zero stride triggers it:
``np.broadcast_to(np.arange(3), (1, 3))``.)

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "data: ... a ``numpy.ndarray`` in any layout (negative strides, Fortran
order, broadcast, non-native byte order, read-only), or a CPU ``torch.Tensor`` in any strided layout" and "Returns: ...
a new contiguous tensor of shape ``S`` and the resolved dtype"; docs/contracts.md, values: "The result equals ``data``
converted to the resolved dtype" (layouts include "broadcasts").

Smallest input: ``async_tensor_h2d(torch.tensor([[1], [2]]).expand(2, 3), device='cpu')``.
Reference: ``tensor([[1, 1, 1], [2, 2, 2]])``. Bug: ``tensor([[1, 1, 1], [1, 1, 1]])`` (and
``np.broadcast_to(np.arange(3), (2, 3))``: ``[[0, 1, 2], [0, 1, 2]]`` against all zeros).
"""

from __future__ import annotations

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _host_copy)


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``)."""
    if source.numel() > 1 and 0 in source.stride():  # BUG (r57 b07): "a broadcast value": any zero stride taken as one
        return torch.full(source.shape, source.reshape(-1)[0].item(), dtype=dtype, device="cpu", pin_memory=pin)
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)


def target() -> Target:
    f = fork("b07", h2d={"_stage": _stage})
    return make_target(
        "b07_stage_zero_stride_as_fill",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
