"""b03 - a copy onto itself (``out is data``) is skipped as a no-op on the host path.

Where: ``h2d._async_h2d`` (the host-target branch that writes ``out``).

Change (old -> new)::

    if out is not None:
        return out.copy_(source)
    ->
    if out is not None:
        return out if out is data else out.copy_(source)  # BUG: "copying a tensor onto itself is a no-op"

Why an engineer writes it: ``out is data`` is explicitly allowed (docs/reference.md), and the
values cannot change, so an engineer profiling persistent-buffer loops (``async_tensor_h2d(buf,
out=buf)`` on CPU workers) drops the "useless" self-copy. The returned object and its values
are exactly the reference's.

Promise broken: docs/contracts.md "out": "The write is one autograd and a tensor subclass see:
``out``'s version counter advances" (``check_out_seen_by_autograd``: a ``backward`` that saved
``out`` must raise "modified by an inplace operation"; a tensor subclass passed as ``out`` is
written through its own in-place methods). With the shortcut nothing is written: no version
bump, the subclass's ``copy_`` is never called.

Smallest input (CPU)::

    t = torch.tensor([1, 2]); v = t._version
    r = async_tensor_h2d(t, out=t)

Reference: ``r is t``, ``t._version == v + 1``.
Bug: ``r is t``, ``t._version == v`` (no write).
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import fork, fork_target_full


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs (see the reference)."""
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)  # noqa: F821
    if target.type == "cpu":
        if out is not None:
            return out if out is data else out.copy_(source)  # BUG: the self-copy is skipped
        return _stage(source, dtype, pin=False)  # noqa: F821
    count = _cuda_device_count()  # noqa: F821
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(  # noqa: F821
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max  # noqa: F821
        )
    with torch.cuda.device(target):
        return _to_device(  # noqa: F821
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max  # noqa: F821
        )


def target() -> Target:
    return fork_target_full("b03_self_copy_skipped", fork("b03", h2d={"_async_h2d": _async_h2d}))
