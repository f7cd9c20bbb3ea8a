"""b18 (GPU-only): results for a host target are allocated in pinned memory where pinning exists.

Where: ``h2d._async_h2d``, the ``target.type == "cpu"`` branch of the main function. The
reference makes the caller's new host tensor with ``_stage(source, dtype, pin=False)``:
pageable memory, as ``torch.tensor`` would. The bug passes ``pin=pin_memory_available()``
("host results are usually sent to a GPU next: pinned, their ``.to(cuda,
non_blocking=True)`` is asynchronous").

Why realistic: an optimisation for the one caller that forwards the result to a device;
every other caller now holds page-locked memory for as long as it keeps its result
(logprobs, sampled ids copied to the host), drawn from torch's caching host allocator and
never released while referenced: pinned memory grows with what the engine keeps, and a
host result is no longer ordinary memory.

On a CPU-only host ``pin_memory_available()`` is False: every call behaves exactly as the
control (repro.py checks it). On one CUDA GPU: ``r = async_tensor_h2d([1, 2, 3],
device="cpu"); r.is_pinned()`` is ``False`` for the reference and ``True`` for the bug;
``torch.cuda.host_memory_stats()["allocated_bytes.current"]`` grows with every kept result
(10,000 kept results of 64 KiB: about 640 MiB of pinned memory).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging as _ref_staging
from plumbing import bu_fork, fork, make_target


def _async_h2d(
    data, device, dtype, out, *, min_block=_ref_staging.MIN_BLOCK_BYTES, small_max=_ref_staging.SMALL_MAX_BYTES
):
    if out is None and type(data) is torch.Tensor and (dtype is None or dtype is data.dtype):
        moved = _pinned_fast_path(data, device)
        if moved is not None:
            return moved
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=pin_memory_available())  # BUG: was pin=False
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
    f = fork("b18", h2d={"_async_h2d": _async_h2d})
    return make_target(
        "b18_host_results_pinned",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18"),
    )
