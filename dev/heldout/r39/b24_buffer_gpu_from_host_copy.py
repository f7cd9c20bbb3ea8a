"""b24 (GPU-only, buffer.py ``CpuGpuBuffer.__init__``): ``.gpu`` is made as a non-blocking copy of the freshly zeroed pinned ``.cpu``; the copy reads ``.cpu`` when the stream reaches it, so host writes made right after construction (the runner's first fill) leak into ``.gpu`` rows no ``copy_to_gpu`` ever sent.

What changed: ``self.gpu = torch.zeros(size, dtype=dtype, device=device)`` became
``self.gpu = self.cpu.to(device, non_blocking=True, copy=True)``.

Why an engineer would write it: ``.cpu`` is already zero, so copying it "initialises the
twin with one DMA instead of a memset kernel" and keeps the two sides bit-identical by
construction (``copy=True`` so a host device still gets its own tensor). The copy is
issued ``non_blocking`` from pinned memory like every other copy of the buffer, which is
exactly the documented hazard: ``.cpu`` must not be written until it has run, and no
caller knows a copy is in flight after a constructor.

Promise broken: ``CpuGpuBuffer`` docstring: "A zero-initialised host buffer (``.cpu``,
``.np``) and its device twin (``.gpu``)"; ``copy_to_gpu`` docstring: "Rows from ``n`` on
are not touched"; docs/contracts.md buffer: "``.cpu`` and ``.gpu`` ... are
zero-initialised", "``copy_to_gpu(n)`` ... copy exactly rows ``[0, n)``, leave the other
rows alone" (state machine against a numpy model); docs/reference.md: the hazard exists
"for ``CpuGpuBuffer.cpu`` after ``copy_to_gpu(n)``", not after construction.

Smallest input (one GPU, pinning available): ``torch.cuda._sleep(200_000_000)``; ``b =
CpuGpuBuffer(1024, dtype=torch.int32, device='cuda')``; ``b.np[:] = 7``;
``b.copy_to_gpu(1)``; ``torch.cuda.synchronize(); b.gpu[1:].unique()``.

Reference result: ``.gpu`` rows 1..1023 are ``0`` (only row 0 was sent).
Bug result: rows 1..1023 are ``7``: the construction copy ran after the host write.
The race was checked with plain torch on an H200 (torch 2.11): a pinned zero tensor
copied this way behind ``_sleep`` and written 7 on the host gives a device tensor of 7s.
On a CPU-only host (or with ``pin_memory=False``) the copy is synchronous and ``.gpu`` is
a fresh zero tensor, as the reference's.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

from ._common import buffer_utils_ns, make_target, rebind


def __init__(
    self,
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
                size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
            )
        # BUG: was `torch.zeros(size, dtype=dtype, device=device)`: the twin is copied from the zeroed host buffer
        # ("one zero-fill, no device memset"), non_blocking from pinned memory: it reads .cpu when the stream runs it
        self.gpu = self.cpu.to(device, non_blocking=True, copy=True)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None



class CpuGpuBuffer(buffer.CpuGpuBuffer):
    """The reference buffer with the ``__init__`` above."""


CpuGpuBuffer.__init__ = rebind(__init__, buffer)  # type: ignore[method-assign]


def target() -> Target:
    return make_target("b24_buffer_gpu_from_host_copy", buffer_cls=CpuGpuBuffer, buffer_utils=buffer_utils_ns())
