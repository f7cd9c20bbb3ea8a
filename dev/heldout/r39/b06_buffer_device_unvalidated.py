"""b06 (CPU-visible, buffer.py ``CpuGpuBuffer.__init__``): the device is parsed with ``torch.device(device)`` instead of the validating resolver, so ``device='meta'`` and ``'cpu:1'`` build a buffer and ``device=0`` on a CPU host escapes as RuntimeError.

What changed: ``from .h2d import _resolve_device; device = _resolve_device(device)``
became ``device = torch.device(device)``.

Why an engineer would write it: the buffer only needs a ``torch.device`` for
``torch.zeros(..., device=device)`` and for the CUDA guard; importing the h2d entry
point's resolver (a function-local import, to dodge a cycle) looks like needless
coupling, and ``torch.device`` already refuses nonsense strings. But it accepts every
device type torch knows (``meta``, ``xpu``), a CPU index (``cpu:1``; torch's CPU
allocator ignores it), and on a CPU-only build ``torch.device(0)`` raises RuntimeError
("Cannot access accelerator device") outside the constructor's ``try``.

Promise broken: ``CpuGpuBuffer`` docstring: "device: the device of ``.gpu`` (``"cuda"``,
``"cuda:1"``, ``torch.device``, or ``"cpu"`` on CPU platforms)" and Raises: "ValueError:
... an invalid or unavailable device"; docs/contracts.md buffer: "bad constructor
arguments raise ``TypeError``/``ValueError`` naming one of ``size``, ``dtype``,
``device``, ...".

Smallest input: ``CpuGpuBuffer(4, dtype=torch.int32, device='meta')`` (also
``device='cpu:1'``; ``device=0`` on a CPU-only host).

Reference result: ``ValueError: device=meta is not supported: the target must be 'cpu' or
a CUDA device`` (``cpu:1``: ValueError naming a CPU index; ``0``: ValueError, CUDA not
available).
Bug result: a buffer whose ``.gpu`` is a meta tensor (no data; ``copy_to_gpu`` "works"
and reads back nothing); ``'cpu:1'`` builds a host buffer; ``0`` raises ``RuntimeError``.
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
    # BUG: was `from .h2d import _resolve_device; device = _resolve_device(device)`: torch parses the device,
    # no validation ("the buffer only needs a torch.device, not the h2d entry point's checks")
    device = torch.device(device)
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
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    """The reference buffer with the ``__init__`` above."""


CpuGpuBuffer.__init__ = rebind(__init__, buffer)  # type: ignore[method-assign]


def target() -> Target:
    return make_target("b06_buffer_device_unvalidated", buffer_cls=CpuGpuBuffer, buffer_utils=buffer_utils_ns())
