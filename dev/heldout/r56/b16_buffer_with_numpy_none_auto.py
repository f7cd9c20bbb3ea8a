"""b16 (CPU): ``CpuGpuBuffer(..., with_numpy=None)`` is taken as "``.np`` where numpy can" instead of refused.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__`` (the ``with_numpy`` check).

Change: a widening to a tri-state flag ("engines build their buffers from one table of specs, some
bfloat16: ``None`` means make ``.np`` when the dtype has a numpy twin, like ``pin_memory=None`` means
pin when pinning is available")::

    if not isinstance(with_numpy, (bool, np.bool_)):                              # reference
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")

    if with_numpy is None:                                                       # bug
        with_numpy = dtype in _NUMPY_DTYPES
    elif not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")

Booleans behave as before. ``None`` (a config value left unset, a keyword forwarded from a caller's own
``with_numpy=None`` default) no longer raises: the buffer is built, with ``.np`` for numpy dtypes and
silently without it for bfloat16 and float8, whose ``.np`` then raises ``AttributeError`` far from the
construction that asked nothing definite.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer``: "Raises: TypeError: a size that is not an int (bools
included), a dtype that is not a supported torch dtype, a missing device, a non-bool ``pin_memory`` or
``with_numpy``"; docs/contracts.md, buffer: "bad constructor arguments raise ``TypeError``/``ValueError``
naming one of ``size``, ``dtype``, ``device``, ``pin_memory``, ``with_numpy``".

Smallest input: ``CpuGpuBuffer(2, dtype=torch.int32, device='cpu', with_numpy=None)``.
Reference: ``TypeError: with_numpy must be a bool, got None``. Bug: a buffer with ``.np`` (``int32``, ``[0, 0]``);
with ``dtype=torch.bfloat16``: a buffer whose ``.np`` raises ``AttributeError``.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, pin_memory_available, _NUMPY_DTYPES)


def __init__(
    self,
    *size: int,
    dtype: torch.dtype,
    device: torch.device | str,
    pin_memory: bool | None = None,
    with_numpy: bool | None = True,
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
    if with_numpy is None:  # BUG (r56 b16): None taken as "where numpy can" instead of refused
        with_numpy = dtype in _NUMPY_DTYPES
    elif not isinstance(with_numpy, (bool, np.bool_)):
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


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_buffer_with_numpy_none_auto",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b16"),
    )
