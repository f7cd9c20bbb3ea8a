"""b14 (CPU): ``CpuGpuBuffer.__init__`` ends with ``gc.freeze()``: every object alive in the process moves to the collector's permanent generation.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__`` (its last line).

Change: a start-up optimisation borrowed from the engine ("buffers are made once at start-up and live
as long as the engine: keep them, and the start-up heap, out of every full collection, as vLLM's engine
core freezes the heap after start-up")::

    self._np = self.cpu.numpy() if with_numpy else None                          # reference (last line)

    self._np = self.cpu.numpy() if with_numpy else None                          # bug
    gc.freeze()

The buffer itself is the reference's, every value and copy unchanged. ``gc.freeze()`` is process-wide:
it moves every object the collector tracks at that moment, the caller's included, into the permanent
generation, where no collection looks again (``gc.get_freeze_count()`` counts them) until someone calls
``gc.unfreeze()``. Reference cycles alive then (a request's state, a traceback, a closure) are never
collected once dropped, and each buffer made later (a buffer every few steps in the step loop) freezes
the heap again.

Promise broken: docs/contracts.md, side-effects: "Every call, valid or failing, and every ``CpuGpuBuffer``
construction and copy leaves the process-wide state as it found it ... Python: ... the garbage
collector's switch, thresholds, debug flags and callbacks"; docs/reference.md, Calling contexts:
"Process-wide state: a call changes none".

Smallest input: ``before = gc.get_freeze_count(); CpuGpuBuffer(4, dtype=torch.int32, device='cpu');
gc.get_freeze_count() == before``.
Reference: ``True``. Bug: ``False`` (about 200,000 objects frozen in the reproduction's process; it unfreezes them).
"""

from __future__ import annotations

import gc

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__

    def __init__(
        self,
        *size: int,
        dtype: torch.dtype,
        device: torch.device | str,
        pin_memory: bool | None = None,
        with_numpy: bool = True,
    ) -> None:
        # the reference's __init__ unchanged, then one line
        buffer.CpuGpuBuffer.__init__(
            self, *size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy
        )
        gc.freeze()  # BUG (r56 b14): "long-lived buffers: keep the heap out of full collections", process-wide


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_buffer_init_freezes_gc",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b14"),
    )
