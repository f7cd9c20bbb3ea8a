"""b05 (CPU): a host ``out`` written by the reference's own serial staging copy (``_host_copy``), whose numpy route bypasses autograd's version counter and tensor subclasses.

Where: ``h2d_impl/h2d.py::_async_h2d``, the host-target branch with ``out``.

Change (one line)::

    return out.copy_(source)        # reference: "the caller's tensor: torch's copy_ (autograd's version counter, subclasses)"
    return _host_copy(out, source)  # bug: "no OpenMP stall for host outs either: the staging copy, serial up to 256 KiB"

``_host_copy`` is written for staging tensors nobody else holds: from 32,769 elements up to
256 KiB (``SERIAL_COPY_MAX_BYTES``), for a pure copy or a numpy-castable conversion, it writes
with ``np.copyto(dst.numpy(), ...)``. Written so, the caller's ``out`` holds the right values
but its version counter does not move, so a graph that saved ``out`` before the call
backpropagates through the new values without PyTorch's "modified by an inplace operation"
error, and a ``torch.Tensor`` subclass passed as ``out`` never sees the write. Smaller and
larger copies, and conversions numpy does not make (bool sources, float16, complex), still go
through ``copy_``.

Promise broken: README, out: "returns `out` itself, writes exactly its elements, as autograd
and a tensor subclass see (version counter advanced)"; docs/contracts.md, out: "The write is
one autograd and a tensor subclass see: `out`'s version counter advances (`out._version`: a
write through `out.data` or a numpy view leaves it, and a backward that saved `out` then
silently uses the new values where PyTorch promises an error)"; h2d_impl/h2d.py
``_serial_copy`` docstring: "``dst`` is a fresh host tensor nobody else holds (no autograd
history, no subclass: the numpy route bypasses both)".

Smallest input: ``out = torch.zeros(32769, dtype=torch.int32); v = out._version;
async_tensor_h2d(np.arange(32769, dtype=np.int32), out=out); out._version - v``.
Reference: ``1``. Bug: ``0`` (values equal). With ``w = torch.ones(32769, requires_grad=True);
y = (w * out_f32).sum()`` before such a call into a float32 ``out``: reference ``y.backward()`` raises
``RuntimeError`` (modified by an inplace operation), bug returns silently.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs (smallest block, small-payload threshold) for tests that drive
    the pooled-block path with small inputs (``small_max=0``)."""
    if out is None:
        moved = _fast_path(data, device, dtype, small_max)
        if moved is not None:
            return moved
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return _host_copy(out, source)  # BUG (r50 b05): the staging copy (numpy route) into the caller's tensor
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


def target() -> Target:
    f = fork("b05", h2d={"_async_h2d": _async_h2d})
    return make_target(
        "b05_host_out_serial_copy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
