"""b26 (GPU only): ``CpuGpuBuffer`` pins ``.cpu`` with ``Tensor.pin_memory()`` *after* making ``.np``.

The change: in ``CpuGpuBuffer.__init__``, ``.cpu`` is allocated pageable, ``.np`` is taken from
it, and only then is ``.cpu`` pinned, as ``self.cpu = self.cpu.pin_memory()`` (instead of
``torch.zeros(..., pin_memory=...)`` before ``.np``).

Why an engineer writes it: allocation, views, then "pin if asked" reads as three tidy
steps, and ``pin_memory()`` is easily taken for an in-place operation like
``share_memory_()``; it returns a *copy* in page-locked memory.

What breaks (only where pinning is available, i.e. on a CUDA machine: elsewhere nothing
is pinned and ``.np`` aliases ``.cpu`` as in the reference): "``.np`` a view of ``.cpu``"
(docs/reference.md; buffer contract: ``.np`` aliases ``.cpu``). ``.np`` views the dropped
pageable tensor: the engine's writes through ``.np`` never reach ``.cpu``, and
``copy_to_gpu(n)`` uploads zeros. ``b = CpuGpuBuffer(4, dtype=torch.int32, device="cuda");
b.np[:] = [1, 2, 3, 4]; b.copy_to_gpu(4)`` gives ``[0, 0, 0, 0]``. Seen on one H200
(torch 2.11): ``x = torch.zeros(4, dtype=torch.int32); n = x.numpy(); y = x.pin_memory();
n[:] = 7`` leaves ``y`` pinned and ``[0, 0, 0, 0]``.
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
            self.cpu = torch.zeros(size, dtype=dtype, device="cpu")
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None
    if bool(pin_memory) and pin_memory_available():
        with guard:
            self.cpu = self.cpu.pin_memory()  # BUG: a pinned *copy*, made after .np viewed the pageable tensor


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __init__ = rebind(__init__, _buffer)


def target():
    return make_target("b26-buffer-np-before-pin", buffer_cls=CpuGpuBuffer)
