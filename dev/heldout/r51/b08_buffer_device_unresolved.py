"""b08 (CPU): ``CpuGpuBuffer``'s device parsed by ``torch.device(device)`` instead of resolved and validated: ``"meta"`` and ``"cpu:1"`` accepted.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__``.

Change (one line, the local import of ``_resolve_device`` dropped with it)::

    device = _resolve_device(device)   # reference: the same validation as async_tensor_h2d's device
    device = torch.device(device)      # bug: "no circular import: torch parses device strings"

``torch.device`` parses any device torch knows and checks nothing else: ``device="meta"``
builds a buffer whose ``.gpu`` is a meta tensor (no memory: ``copy_to_gpu`` "succeeds" and
``.gpu`` holds no values), ``"cpu:1"`` a buffer on a host index that does not exist, an int
``0`` a CUDA device on a host without CUDA (then torch's allocation fails, translated to a
``ValueError`` naming ``size``/``dtype``, not ``device``), and a bare ``"cuda"`` is never given
its index. Valid spellings (``"cpu"``, ``torch.device("cpu")``) are unchanged.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer`` docstring, Raises: "ValueError: ... an
invalid or unavailable device"; docs/reference.md, device: "`"cuda"` (the current device),
`"cuda:1"`, an int or numpy integer, a `torch.device`, `"cpu"`" (the same resolution for
the buffer); docs/contracts.md, buffer: "`.cpu` and `.gpu` have the shape, dtype and device
asked for ... bad constructor arguments raise `TypeError`/`ValueError` naming ... `device`".

Smallest input: ``CpuGpuBuffer(2, dtype=torch.int32, device='meta').gpu``.
Reference: ``ValueError: device=meta is not supported: the target must be 'cpu' or a CUDA
device``. Bug: a meta tensor of shape ``(2,)`` (``.gpu.device == meta``).
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


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
    device = torch.device(device)  # BUG (r51 b08): parsed, never resolved or validated
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
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_buffer_device_unresolved",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b08"),
    )
