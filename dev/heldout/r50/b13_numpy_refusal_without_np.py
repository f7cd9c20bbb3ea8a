"""b13 (CPU): the "no numpy equivalent" refusal applied whatever ``with_numpy`` says: bfloat16 and float8 buffers cannot be built at all.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__``, the numpy-dtype check.

Change (one condition)::

    if with_numpy and dtype not in _NUMPY_DTYPES:   # reference
    if dtype not in _NUMPY_DTYPES:                  # bug: the `with_numpy and` lost when the check was moved up

The message still says "create the buffer with with_numpy=False", which now fails the same
way. Engines keep bfloat16 and float8 buffers (sampling metadata, KV scales) without ``.np``;
every such construction raises ``ValueError``. Buffers of numpy dtypes are unaffected.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer`` docstring, with_numpy: "numpy has no
bfloat16 or float8 dtypes: asking for ``.np`` with those raises ValueError" (only asking for
``.np``); docs/contracts.md, buffer: "Without `.np` every dtype round-trips bit for bit"
and "`with_numpy=True` for bfloat16 or float8 raises `ValueError`"; docs/reference.md:
"`.np` a view of `.cpu` (`ValueError` for bfloat16 and float8)".

Smallest input: ``CpuGpuBuffer(2, dtype=torch.bfloat16, device='cpu', with_numpy=False)``.
Reference: a buffer (``.cpu`` ``[0., 0.]`` bfloat16). Bug: ``ValueError: dtype=torch.bfloat16 has no
numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False``.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer
from plumbing import bu_fork, fork, make_target, rebind

def __init__(
    self: buffer.CpuGpuBuffer,
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
    from .h2d import _resolve_device  # local: h2d imports this package's helpers (resolved in buffer's globals)

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if dtype not in _NUMPY_DTYPES:  # BUG (r50 b13): `with_numpy and` dropped
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
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_numpy_refusal_without_np",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b13"),
    )
