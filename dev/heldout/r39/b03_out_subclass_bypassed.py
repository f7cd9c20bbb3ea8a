"""b03 (CPU-visible, h2d.py ``_async_h2d``): a host ``out`` is written through the base class with ``__torch_function__`` disabled, so a tensor subclass passed as ``out`` never sees the write.

What changed: the host branch ``return out.copy_(source)`` became
``with torch._C.DisableTorchFunctionSubclass(): return torch.Tensor.copy_(out, source)``.

Why an engineer would write it: profiling an engine whose persistent ``out`` buffers are
a ``torch.Tensor`` subclass (a logging or sharding wrapper, a ``torch.compile`` fake) shows
the Python ``__torch_function__`` round trip dominating the host branch; the write is a
plain dense copy, so calling the base method with subclass dispatch off "does the same
thing" faster. The values and ``out._version`` are unchanged, so the common test (a
plain tensor) passes.

Promise broken: docs/contracts.md, out: "The write is one autograd and a tensor subclass
see ... a ``torch.Tensor`` subclass passed as ``out`` is written through its own in-place
methods (``prop_out_autograd_table``)"; README contract table, out: "writes exactly its
elements, as autograd and a tensor subclass see"; the host branch's own comment: "the
caller's tensor: torch's copy_ (autograd's version counter, subclasses)".

Smallest input: a subclass recording ``__torch_function__`` calls,
``class Logged(torch.Tensor): __torch_function__ records func.__name__``;
``async_tensor_h2d([1.0], out=torch.zeros(1).as_subclass(Logged))``.

Reference result: ``out`` holds ``[1.0]`` and ``Logged`` saw ``copy_``.
Bug result: ``out`` holds ``[1.0]`` but ``Logged`` saw no ``copy_`` (its own in-place
method, or an override of ``copy_``, is bypassed).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import buffer_utils_ns, fork, make_target


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs exposed (smallest block, small-payload threshold)."""
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            # BUG: was `return out.copy_(source)`; the base method with subclass dispatch off skips
            # the subclass's __torch_function__ (and any copy_ override) "to save the round trip"
            with torch._C.DisableTorchFunctionSubclass():
                return torch.Tensor.copy_(out, source)
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
    f = fork("b03", h2d={"_async_h2d": _async_h2d})
    return make_target(
        "b03_out_subclass_bypassed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
