"""b10 (CPU): a host ``out`` that already compares equal to the data is returned without being written.

Where: ``h2d_impl/h2d.py::_async_h2d`` and ``async_tensor_h2d_cpu`` (the host ``out`` route: ``out.copy_(source)``).

Change: a saving for persistent outputs ("the CPU worker re-sends unchanged inputs every step (sampling
parameters, a decode batch's block table) into the same ``out``: when it already holds them, skip the write")::

    return out.copy_(source)                                                              # reference

    if torch.equal(out, source):                                                          # bug
        return out
    return out.copy_(source)

``torch.equal`` compares values, after promoting both to a common dtype, and ``-0.0 == 0.0``: an ``out`` holding
``+0.0`` where the data has ``-0.0`` (a sign a later division or ``copysign`` reads) compares equal and keeps its
``+0.0``. Float lists into a float32 ``out`` compare in float64, so an ``out`` holding the float32 rounding of
the data equals the float64 data only where it is exact (no gain there, and no harm). And the skip is a write
torch never sees: ``out``'s version counter stays, so autograd's check for a tensor saved for backward and then
modified does not fire, and a ``torch.Tensor`` subclass passed as ``out`` sees no in-place call.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: ... It is written in place (non-contiguous strides included) and
returned"; docs/contracts.md, values: "the same bits (``-0.0`` is not ``0.0`` ...)"; out: "The write is one autograd and a
tensor subclass see: ``out``'s version counter advances".

Smallest input: ``o = torch.tensor([0.0, 1.0]); v = o._version; async_tensor_h2d([-0.0, 1.0], out=o);
torch.signbit(o), o._version - v``.
Reference: ``[True, False]``, ``1``. Bug: ``[False, False]``, ``0``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

# ruff: noqa: F821  (the reference module's globals: _prepare, _stage, _to_device, _cuda_device_count, ...)


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs."""
    if out is None:
        moved = _fast_path(data, device, dtype, small_max)
        if moved is not None:
            return moved
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            if torch.equal(out, source):  # BUG (r57 b10): "already holds it": -0.0 == 0.0, and no write torch sees
                return out
            return out.copy_(source)
        return _stage(source, dtype, pin=False)
    count = _cuda_device_count()
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )
    with torch.cuda.device(target):
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform variant of :func:`async_tensor_h2d` (host memory is the "device")."""
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        if torch.equal(out, source):  # BUG (r57 b10): the same skip in the CPU variant
            return out
        return out.copy_(source)
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b10", h2d={"_async_h2d": _async_h2d, "async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b10_host_out_write_skipped_when_equal",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10"),
    )
