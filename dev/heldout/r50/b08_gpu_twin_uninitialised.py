"""b08 (CPU): ``.gpu`` allocated with ``torch.empty``: the device twin is not zero-initialised.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__``, the twin's allocation.

Change (one call)::

    self.gpu = torch.zeros(size, dtype=dtype, device=device)   # reference
    self.gpu = torch.empty(size, dtype=dtype, device=device)   # bug: "copy_to_gpu overwrites it; skip the memset"

The engineer reasons that ``.gpu`` is only ever read after ``copy_to_gpu`` has filled it. But
engines read rows of ``.gpu`` past ``n`` (padding, CUDA graphs replayed at a larger batch),
and the buffer promises zeros. ``.cpu``/``.np`` stay zeros. Whatever the allocator hands back
is there: on the host recycled heap blocks hold earlier tensors' bytes, and under
``torch.use_deterministic_algorithms(True)`` (one of the contracts' calling contexts, where
``torch.utils.deterministic.fill_uninitialized_memory`` is on by default) torch fills empty
tensors with NaN (floats) or the dtype's largest value (integers).

Promise broken: README, buffer: "`CpuGpuBuffer`: zero-initialised, pinned iff asked and
available, ..."; docs/reference.md: "**`CpuGpuBuffer(*size, dtype, device, pin_memory=None,
with_numpy=True)`**: zero-initialised, ..."; docs/contracts.md, buffer: "`.cpu` and `.gpu` have
the shape, dtype and device asked for and are zero-initialised (checked after freeing dirtied
memory)".

Smallest input: under ``torch.use_deterministic_algorithms(True)``,
``CpuGpuBuffer(2, dtype=torch.float32, device='cpu').gpu``.
Reference: ``tensor([0., 0.])``. Bug: ``tensor([nan, nan])``.
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
        self.gpu = torch.empty(size, dtype=dtype, device=device)  # BUG (r50 b08): not zero-initialised
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_gpu_twin_uninitialised",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b08"),
    )
