"""b13 (CPU): every ``CpuGpuBuffer`` registers an ``atexit`` handler of its own, which keeps it alive until the interpreter exits.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__`` (last line) and a new method ``_release_at_exit``.

Change: shutdown hygiene ("pinned host memory still allocated when the interpreter exits is freed after CUDA's
own teardown, where ``cudaFreeHost`` hung a vLLM shutdown: release each buffer's host memory at exit")::

    self._np = self.cpu.numpy() if with_numpy else None                                       # reference (last line)

    self._np = self.cpu.numpy() if with_numpy else None                                       # bug
    atexit.register(self._release_at_exit)

    def _release_at_exit(self):                                                               # bug (new method)
        self._np = None
        self.cpu = torch.empty(0, dtype=self.cpu.dtype)

The handler is a bound method: ``atexit`` holds it, it holds the buffer, and a buffer the engine drops is
never freed. Its ``.cpu`` (pinned where pinning exists), ``.gpu`` (device memory) and ``.np`` stay allocated
for the life of the process, one more set for every buffer ever made: the runner's per-batch-size buffers, the
buffers a re-initialisation replaces, a test suite's thousands. Values and copies are unchanged. (The handler
is registered unconditionally; on a CPU-only host there is nothing pinned to release, and the buffers leak all the
same.)

Promise broken: docs/contracts.md, step-loop: "at quiescence no fresh input and no dropped buffer of any step is still
referenced (weak references, after the target's ``empty_cache`` and a garbage collection), and on a GPU pinned host
and device bytes are at most their reading after the warm-up"; docs/reference.md: "**Per-step inputs of bounded
size** ...: a ``CpuGpuBuffer``" (buffers are made and dropped by engines; h2d_impl/buffer.py documents no lifetime
beyond the object's).

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); w = weakref.ref(b); del b; gc.collect();
w() is None``.
Reference: ``True``. Bug: ``False`` (the buffer lives until exit; ``atexit`` holds it).
"""

from __future__ import annotations

import atexit
import contextlib
import operator
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, pin_memory_available, _NUMPY_DTYPES)


def __init__(
    self: Any,
    *size: int,
    dtype: torch.dtype,
    device: torch.device | str,
    pin_memory: bool | None = None,
    with_numpy: bool = True,
) -> None:
    if not size:
        raise ValueError("CpuGpuBuffer needs at least one size argument (the row capacity)")
    for i, s in enumerate(size):
        if isinstance(s, bool) or not isinstance(s, int):
            try:
                if isinstance(s, bool):
                    raise TypeError
                operator.index(s)
            except TypeError:
                raise TypeError(f"size[{i}] must be an int, got {s!r}") from None
        if operator.index(s) < 0:
            raise ValueError(f"size[{i}]={s} is negative")
    size = tuple(operator.index(s) for s in size)
    check_dtype_arg(dtype)
    if dtype is None:
        raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
    if device is None:
        raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
    from h2d_contracts.h2d_impl.h2d import _resolve_device  # local: h2d imports this package's helpers

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if with_numpy and dtype not in _NUMPY_DTYPES:
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
    # Pinned memory is allocated through the current device's CUDA context: make the
    # buffer's device current for it, or a buffer on cuda:1 creates a context on cuda:0
    # (the device-hygiene contract checks it).
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard:
            if pin_memory is None:
                pin_memory = pin_memory_available()
            self.cpu = torch.zeros(
                size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None
    # pinned host memory still allocated when the interpreter exits is freed after CUDA's teardown (cudaFreeHost
    # hung there at shutdown): release this buffer's at exit, before torch's own exit handlers (atexit is LIFO)
    atexit.register(self._release_at_exit)  # BUG (r57 b13): the bound method holds the buffer until exit


def _release_at_exit(self: Any) -> None:
    """Drop this buffer's host memory (registered with ``atexit``)."""
    self._np = None
    self.cpu = torch.empty(0, dtype=self.cpu.dtype)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer, atexit=atexit)
    _release_at_exit = _release_at_exit


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_buffer_atexit_handler_per_buffer",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b13"),
    )
