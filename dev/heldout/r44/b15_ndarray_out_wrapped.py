"""b15 (CPU): a numpy array passed as ``out`` is wrapped with ``torch.from_numpy`` and written, instead of refused.

Where: ``h2d._async_h2d`` (the body of the main ``async_tensor_h2d``; the CPU-platform
variant is unchanged and still refuses it).

The change: one statement added first::

    if isinstance(out, np.ndarray):
        out = torch.from_numpy(out)

Why an engineer writes it: engines keep ``CpuGpuBuffer.np`` views and pass
``out=buf.np[:n]`` by mistake; wrapping the array (a view of the same memory) makes the
call work on the host instead of failing. But the call then returns a new tensor object,
not ``out``; it writes into a caller's array that the API says it never writes; and it
accepts an argument kind the signature refuses (the variant keeps refusing it, so the two
entry points disagree).

Promise broken: ``async_tensor_h2d`` docstring: "out: optional strided tensor", Raises
"TypeError: ... ``out`` not a strided tensor"; bad-input kind ``out-not-a-tensor`` (must
raise ``TypeError``, docs/contracts.md); README ``out``: "returns ``out`` itself"; README
``cpu-path``: "the CPU-platform variant agrees with the main path".

Smallest input: ``async_tensor_h2d([0], out=np.array([0.0]), device="cpu")``.
Reference: ``TypeError: out must be a torch.Tensor or None, got ndarray``, the array
untouched. Bug: returns ``tensor([0.], dtype=torch.float64)`` (a view of the caller's
array); ``async_tensor_h2d_cpu`` with the same arguments still raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)

def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs (smallest block, small-payload threshold)."""
    if isinstance(out, np.ndarray):  # BUG: engines pass buf.np[:n] as out: write through the array's memory
        out = torch.from_numpy(out)
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)  # the caller's tensor: torch's copy_ (autograd's version counter, subclasses)
        return _stage(source, dtype, pin=False)
    count = _cuda_device_count()
    # One visible device: the target (validated against the count) is the current one; the
    # current_device() call was about 1 us of a small call (cProfile of the bench, see docs/performance.md).
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )
    # Another device than the current one: pinned staging blocks (and the first-use
    # pinned-memory probe) are allocated through the CUDA context of the current device,
    # so make the target current for the call; torch switches back without creating a
    # context on the previous device (c10::cuda::MaybeSetDevice). Without this a call
    # aimed at cuda:1 created a context on cuda:0 (seen on 2x H200; the device-hygiene contract checks it).
    with torch.cuda.device(target):
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )


def _fork() -> Fork:
    return fork("b15", h2d={"_async_h2d": _async_h2d})


def target() -> Target:
    f = _fork()
    return make_target(
        "b15_ndarray_out_wrapped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
