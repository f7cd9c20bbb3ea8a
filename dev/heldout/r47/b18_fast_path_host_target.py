"""b18 fast_path_host_target (GPU only) -- ``h2d._pinned_fast_path``.

What changed: the fast path's ``target.type != "cuda"`` condition was dropped ("the
resolved-device cache only matters for CUDA spellings"); but ``_RESOLVED`` caches ``"cpu"``
too, so a pinned tensor sent to ``device="cpu"`` takes the fast path, and
``data.to(cpu, non_blocking=True)`` returns ``data`` itself (same device, same dtype: no
copy).

Why GPU only: the fast path still requires ``data.is_pinned()``; on a CPU-only host no
tensor is pinned (``is_pinned()`` is False, pinning is unavailable), so every call takes
the general path and a ``"cpu"`` target gets its fresh copy, as in the control (repro.py).

Promise broken (``async_tensor_h2d`` docstring: "A ``"cpu"`` target always gets a fresh
copy"; "Returns ... It never shares storage with ``data``"; reference.md: "never sharing
memory with ``data``"; README ``no-alias``).

Smallest GPU input: ``p = torch.arange(4.).pin_memory()``; ``async_tensor_h2d(p,
device="cpu")`` twice (the first call caches ``"cpu"``): reference: the second result is a
new tensor; bug: it is ``p`` itself (``r is p``; ``p[0] = 9`` changes the "result").
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _pinned_fast_path(data, device):
    kind = type(device)
    target = _RESOLVED.get((kind, device)) if kind in _CACHEABLE else None  # noqa: F821
    if (
        target is None
        or data.requires_grad
        or data.layout is not torch.strided  # noqa: F821
        or data.is_nested
        or not data.is_cpu
        or data.dtype not in SUPPORTED_DTYPES  # noqa: F821
        or data.is_conj()
        or data.is_neg()
        or not data.is_contiguous()
        or (_cuda_device_count() > 1 and target.index != torch.cuda.current_device())  # noqa: F821
        or not data.is_pinned()
    ):
        return None
    return data.to(target, non_blocking=True)


def target() -> Target:
    f = fork("b18", h2d={"_pinned_fast_path": _pinned_fast_path})
    return make_target(
        "b18_fast_path_host_target",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18"),
    )
