"""b30 (GPU only): ``CpuGpuBuffer`` pins ``.cpu`` whenever pinning is available, whatever ``pin_memory`` says.

The change: in ``CpuGpuBuffer.__init__``, ``pin_memory=bool(pin_memory) and
pin_memory_available()`` became ``pin_memory=pin_memory_available()``.

Why an engineer writes it: a pageable ``.cpu`` makes every ``copy_to_gpu`` a blocking,
staged copy; "always pin when we can" looks like a free speed-up, and callers passing
``pin_memory=False`` were assumed to mean "don't fail where pinning is unavailable".

What breaks (only where pinned memory exists, i.e. a CUDA machine; without it both are
pageable, as in the reference): "``.cpu`` pinned when asked and available" -- the buffer
contract says pinned *iff* asked and available. ``CpuGpuBuffer(4, dtype=torch.int32,
device="cuda", pin_memory=False).cpu.is_pinned()`` is True: page-locked memory the caller
declined (a worker that keeps large host-only buffers pageable to leave RAM swappable, or
shares ``.cpu`` with another process, gets pinned memory counted against its limit).
"""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


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
    check_dtype_arg(dtype)
    if dtype is None:
        raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
    if device is None:
        raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
    from .h2d import _resolve_device  # local: h2d imports this package's helpers

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if with_numpy and dtype not in _NUMPY_DTYPES:
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard:
            if pin_memory is None:
                pin_memory = pin_memory_available()
            self.cpu = torch.zeros(
                size, dtype=dtype, device="cpu", pin_memory=pin_memory_available()  # BUG: the caller's pin_memory ignored
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __init__ = rebind(__init__, _buffer)


def target():
    return make_target("b30-buffer-always-pins", buffer_cls=CpuGpuBuffer)
