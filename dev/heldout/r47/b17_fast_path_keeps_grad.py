"""b17 fast_path_keeps_grad (GPU only) -- ``h2d._pinned_fast_path``.

What changed: the hot path for an already pinned, contiguous tensor of the target dtype
(no ``out``) lost its ``data.requires_grad`` condition (one of eleven inline checks,
"a pinned staging tensor never requires grad anyway")::

    target is None or target.type != "cuda" or data.requires_grad or ...   # reference
    target is None or target.type != "cuda" or ...                         # bug

so such a tensor is DMA'd by ``data.to(target, non_blocking=True)`` with autograd
recording the copy, where the general path would have detached it first.

Why GPU only: the fast path answers only for a target already resolved to a CUDA device
(``_RESOLVED``) and a pinned tensor; on a CPU-only host neither exists, every call takes
the general path, and every public call behaves as the control's (repro.py runs them).

Promise broken (reference.md, What it promises: "**Result**: ``out`` itself, else a new
contiguous tensor; never sharing memory with ``data``, never part of the caller's autograd
graph"; README ``values``: "... on the requested device, detached").

Smallest GPU input: ``p = torch.ones(4).pin_memory().requires_grad_()``;
``async_tensor_h2d(p, device="cuda:0")`` twice (the first call resolves and caches
``"cuda:0"``): reference: the second result has ``requires_grad=False``, no ``grad_fn``;
bug: ``requires_grad=True``, ``grad_fn=ToCopyBackward0`` (a ``backward`` through it reaches
``p.grad``).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _pinned_fast_path(data, device):
    kind = type(device)
    target = _RESOLVED.get((kind, device)) if kind in _CACHEABLE else None  # noqa: F821
    if (
        target is None
        or target.type != "cuda"
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
    f = fork("b17", h2d={"_pinned_fast_path": _pinned_fast_path})
    return make_target(
        "b17_fast_path_keeps_grad",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17"),
    )
