"""b13 (CPU-visible, buffer.py ``CpuGpuBuffer.__init__``): allocation failures are translated only when torch raises ``RuntimeError``.

What changed: ``except (RuntimeError, OverflowError, TypeError) as exc:`` around the two
``torch.zeros`` calls became ``except RuntimeError as exc:``.

Why an engineer would write it: "an allocation failure is a RuntimeError (out of memory,
storage size overflow); catching TypeError here hides programming errors". But torch's
argument parser reports a size that does not fit in int64 as ``TypeError`` (``failed to
unpack the object at pos 1 with error "Overflow when unpacking long"``), and those sizes pass
the constructor's own checks (ints, non-negative).

Promise broken: docstring "Raises: ValueError: ... a size too large to allocate"; contracts.md
buffer: "bad constructor arguments raise TypeError/ValueError naming one of size, dtype,
device, pin_memory, with_numpy": the escaping message names none of them (and a ``size``
that *is* an int gets a ``TypeError``).

Smallest input: ``CpuGpuBuffer(2**63, dtype=torch.int8, device="cpu")``.
Reference: ``ValueError: size=(9223372036854775808,) with dtype=torch.int8 cannot be allocated: ...``.
Bug: ``TypeError: zeros(): argument 'size' failed to unpack the object at pos 1 with error
"Overflow when unpacking long long`` (plus torch's C++ frames in the message).
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer, buffer as _buffer_mod

from ._common import buffer_utils_ns, fork, make_target, rebind


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
    check_dtype_arg(dtype)  # noqa: F821
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
    except RuntimeError as exc:  # BUG: was (RuntimeError, OverflowError, TypeError): torch reports sizes past int64 as TypeError
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class BuggyCpuGpuBuffer(CpuGpuBuffer):
    __init__ = rebind(_init, _buffer_mod)


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_buffer_alloc_error_narrowed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=BuggyCpuGpuBuffer,
        buffer_utils=buffer_utils_ns(),
    )
