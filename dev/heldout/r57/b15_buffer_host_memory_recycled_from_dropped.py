"""b15 (CPU): the host memory of a dropped ``CpuGpuBuffer`` is recycled by the next buffer of its size and dtype, while views of it are still held.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__`` (``.cpu`` allocation) and a new ``__del__``.

Change: allocation saved on re-initialisation ("pinning costs about a millisecond per MiB (``cudaHostAlloc``), and
engines rebuild buffers of the same shapes (per CUDA-graph batch size, after a reconfiguration): keep the host
tensor of a dropped buffer and hand it, zeroed, to the next buffer of that size and dtype")::

    self.cpu = torch.zeros(                                                                 # reference
        size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
    )

    pinned = bool(pin_memory) and pin_memory_available()                                    # bug
    free = _FREE_HOST.get((size, dtype, pinned))
    self.cpu = free.pop().zero_() if free else torch.zeros(size, dtype=dtype, device="cpu", pin_memory=pinned)

    def __del__(self):                                                                      # bug (new)
        _FREE_HOST.setdefault((tuple(self.cpu.shape), self.cpu.dtype, pinned), []).append(self.cpu)

Unlike a cache of live buffers, this hands out only memory whose owner is gone, and the new buffer is zeroed.
What the engineer missed is that the owner is not the only holder: ``copy_to_cpu(n)`` returns a view of ``.cpu``,
``.np`` is handed around and kept (engines keep host views as attributes, as vLLM's ``LogitBiasState`` keeps
``req_states.prompt_len.np``), and those outlive the buffer. The next buffer of that shape zeroes and then writes the same memory: a result returned by the dropped
buffer changes under its holder.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_cpu``: "Returns: ``.cpu[:n]``, or ``.cpu`` when ``n`` is None" (a view of
this buffer's host memory) and the class docstring: "A zero-initialised host buffer (``.cpu``, ``.np``) and its device twin";
docs/contracts.md, sequence: "no later call or host write changes a result already returned"; buffer: "``.np`` aliases
``.cpu``".

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.gpu.fill_(7); r = b.copy_to_cpu(); del b;
c = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); c.np[:] = 3; r``.
Reference: ``tensor([7, 7], dtype=torch.int32)``. Bug: ``tensor([3, 3], dtype=torch.int32)`` (``c.cpu`` is ``r``'s memory).
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, pin_memory_available, _NUMPY_DTYPES, _FREE_HOST bound by target())


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
            pinned = bool(pin_memory) and pin_memory_available()
            # host memory of a dropped buffer of this size and dtype, zeroed again (recycled by __del__)
            free = _FREE_HOST.get((size, dtype, pinned))
            if free:
                self.cpu = free.pop().zero_()  # BUG (r57 b15): views of the dropped buffer still read this memory
            else:
                self.cpu = torch.zeros(size, dtype=dtype, device="cpu", pin_memory=pinned)
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


def __del__(self: Any) -> None:
    cpu = self.__dict__.get("cpu")
    if cpu is not None:  # a buffer whose construction failed has none
        pinned = pin_memory_available() and cpu.is_pinned()
        _FREE_HOST.setdefault((tuple(cpu.shape), cpu.dtype, pinned), []).append(cpu)


def target() -> Target:
    f = fork("b15")
    free: dict[tuple[Any, ...], list[torch.Tensor]] = {}  # this target's own recycled host tensors
    cls = type(
        "CpuGpuBuffer",
        (buffer.CpuGpuBuffer,),
        {
            "__doc__": buffer.CpuGpuBuffer.__doc__,
            "__module__": __name__,
            "__init__": rebind(__init__, buffer, _FREE_HOST=free),
            "__del__": rebind(__del__, buffer, _FREE_HOST=free),
        },
    )
    return make_target(
        "b15_buffer_host_memory_recycled_from_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=cls,
        buffer_utils=bu_fork("b15"),
    )
