"""b21 (CPU-visible): ``CpuGpuBuffer.cpu`` is allocated under ``torch.inference_mode()``.

Where: ``h2d_impl/buffer.py``, ``CpuGpuBuffer.__init__`` (the block that allocates ``.cpu``).

Change: ``with guard:`` -> ``with guard, torch.inference_mode():`` around the pinned
allocation of ``.cpu`` (``.gpu`` is allocated after the block, as in the reference).

Why plausible: the staging pool allocates its long-lived pinned blocks under
``torch.inference_mode(False)`` so that a caller's inference mode cannot make them
inference tensors; copying that guard to the buffer's long-lived pinned ``.cpu`` and
dropping the ``False`` ("buffers never need autograd") gives the opposite: ``.cpu`` is an
inference tensor for life. Reads of it and writes through ``.np`` work, as does
``copy_to_gpu(n)`` (it only reads ``.cpu``); but every in-place torch update of ``.cpu``
outside inference mode (``copy_to_cpu(n)``, ``buf.cpu[i] = ...``, ``buf.cpu.copy_(...)``)
raises ``RuntimeError: Inplace update to inference tensor outside InferenceMode``.

Promise broken: README buffer: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy exactly rows
``[0, n)``"; docs/reference.md "a ``CpuGpuBuffer`` filled through ``.np`` or ``.cpu``";
calling contexts: the same results with no context, ``no_grad`` or ``inference_mode``.

Smallest input: ``buf = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); buf.copy_to_cpu(1)``.
Reference: returns ``buf.cpu[:1]`` (zeros copied back from ``.gpu``).
Bug: ``RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed ...``
(``buf.copy_to_gpu(1)`` still works; under ``torch.inference_mode()`` everything works).
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ._common import buffer_utils_ns, make_target, rebind


def _init(
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
    # Pinned memory is allocated through the current device's CUDA context: make the
    # buffer's device current for it, or a buffer on cuda:1 creates a context on cuda:0
    # (the device-hygiene contract checks it).
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard, torch.inference_mode():  # BUG: meant inference_mode(False), as _staging._alloc has it
            if pin_memory is None:
                pin_memory = pin_memory_available()
            self.cpu = torch.zeros(
                size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class _Buffer(CpuGpuBuffer):
    __doc__ = CpuGpuBuffer.__doc__
    __init__ = rebind(_init, _buffer)


def target() -> Target:
    return make_target("b21_buffer_cpu_made_in_inference_mode", buffer_cls=_Buffer, buffer_utils=buffer_utils_ns())
