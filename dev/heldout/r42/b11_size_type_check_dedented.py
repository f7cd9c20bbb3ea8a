"""b11 (CPU): only the last size argument is type-checked: ``CpuGpuBuffer(True, 4, ...)`` builds a (1, 4) buffer.

Where: h2d_impl/buffer.py, ``CpuGpuBuffer.__init__`` (the loop over ``size``).
Change: the ``if isinstance(s, bool) or not isinstance(s, int): ...`` block moves one indentation
    level out, from the top of the ``for i, s in enumerate(size):`` body to just after the loop,
    so it runs once, on the last ``s``; the negativity check stays in the loop.
Why plausible: an indentation slip while reorganising the validation (the block was moved when
    the negativity test was added); Python's loop variables outlive the loop, so nothing fails
    and every single-size buffer is still checked.
Promise broken: CpuGpuBuffer's docstring, Raises: "TypeError: a size that is not an int (bools
    included)"; contracts.md buffer: "bad constructor arguments raise ``TypeError``/``ValueError``
    naming one of ``size``, ...".
Smallest input:
    CpuGpuBuffer(True, 4, dtype=torch.int32, device="cpu")
Reference: ``TypeError: size[0] must be an int, got True``. Bug: a buffer of shape ``(1, 4)``. And
    ``CpuGpuBuffer(2.5, 4, ...)`` raises ``TypeError: 'float' object cannot be interpreted as an
    integer``, which names no argument. A bad *last* size is still refused.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer_mod
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ._common import fork, fork_target_full, rebind


def __init__(  # noqa: N807
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
        if operator.index(s) < 0:
            raise ValueError(f"size[{i}]={s} is negative")
    if isinstance(s, bool) or not isinstance(s, int):  # BUG: dedented out of the loop: only the last size
        try:
            if isinstance(s, bool):
                raise TypeError
            operator.index(s)
        except TypeError:
            raise TypeError(f"size[{i}] must be an int, got {s!r}") from None
    size = tuple(operator.index(s) for s in size)
    check_dtype_arg(dtype)  # noqa: F821 (buffer module's globals)
    if dtype is None:
        raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
    if device is None:
        raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
    from .h2d import _resolve_device

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
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class Buffer(CpuGpuBuffer):
    __doc__ = CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, _buffer_mod)


def target() -> Target:
    return fork_target_full("b11_size_type_check_dedented", fork("b11"), buffer_cls=Buffer)
