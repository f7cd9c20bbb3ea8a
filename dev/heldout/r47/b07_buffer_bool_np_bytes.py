"""b07 buffer_bool_np_bytes (CPU) -- ``buffer.CpuGpuBuffer.__init__`` (the ``.np`` view).

What changed: a bool buffer's numpy view is made as bytes::

    self._np = self.cpu.numpy() if with_numpy else None                       # reference
    self._np = ((self.cpu.numpy().view(np.uint8) if dtype is torch.bool       # bug
                 else self.cpu.numpy()) if with_numpy else None)

Realistic: engines fill masks from integer arrays (``buf.np[:n] = mask_ids``); numpy bool
arrays turn every nonzero into True, so "a byte view is what the kernel reads anyway"
looks harmless. The view still shares ``.cpu``'s memory, but it is not a view of it as
torch sees it: its dtype is uint8, and a value such as 2 written through it puts a byte
into the bool ``.cpu`` that no torch op ever writes.

Promise broken (reference.md, ``CpuGpuBuffer``: "``.np`` a view of ``.cpu``"; README
``buffer``: "``.np`` aliases ``.cpu``", checked against a numpy model of the buffer's dtype;
contracts.md ``values``: "A bool result holds the bytes 0 and 1 only, as every copy torch
makes writes them").

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.bool, device="cpu")``; ``b.np[:] = [2, 0]``:
reference ``b.np.dtype == bool`` and ``.cpu``'s bytes ``[1, 0]``; bug ``b.np.dtype == uint8``
and ``.cpu``'s bytes ``[2, 0]``.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
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
    check_dtype_arg(dtype)  # noqa: F821
    if dtype is None:
        raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
    if device is None:
        raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
    from h2d_contracts.h2d_impl.h2d import _resolve_device

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if with_numpy and dtype not in _NUMPY_DTYPES:  # noqa: F821
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard:
            if pin_memory is None:
                pin_memory = pin_memory_available()  # noqa: F821
            self.cpu = torch.zeros(
                size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()  # noqa: F821
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = (
        (self.cpu.numpy().view(np.uint8) if dtype is torch.bool else self.cpu.numpy()) if with_numpy else None
    )


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__


CpuGpuBuffer.__init__ = rebind(__init__, _buffer)
CpuGpuBuffer.__init__.__qualname__ = "CpuGpuBuffer.__init__"


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_buffer_bool_np_bytes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b07"),
    )
