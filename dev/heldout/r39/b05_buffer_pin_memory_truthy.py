"""b05 (CPU-visible, buffer.py ``CpuGpuBuffer.__init__``): ``pin_memory`` is coerced with ``bool()`` instead of type-checked, so ``pin_memory=1``, ``"no"`` or ``[]`` build a buffer instead of raising TypeError.

What changed: the check ``if pin_memory is not None and not isinstance(pin_memory,
(bool, np.bool_)): raise TypeError(...)`` became the normalisation
``if pin_memory is not None: pin_memory = bool(pin_memory)``.

Why an engineer would write it: engines thread the flag through from configuration
(``pin_memory=int(os.environ.get("PIN", 1))``, YAML's ``yes``); "any truthy flag means
pin" looks friendlier than a TypeError, and the allocation below already does
``bool(pin_memory) and pin_memory_available()``. The string ``"no"`` (truthy) now pins
on a GPU host and silently builds a pageable buffer on a CPU host.

Promise broken: ``CpuGpuBuffer`` docstring, Raises: "TypeError: ... a non-bool
``pin_memory`` or ``with_numpy``"; docs/contracts.md buffer: "bad constructor arguments
raise ``TypeError``/``ValueError`` naming one of ``size``, ``dtype``, ``device``,
``pin_memory``, ``with_numpy``".

Smallest input: ``CpuGpuBuffer(4, dtype=torch.int32, device='cpu', pin_memory=1)``
(or ``pin_memory='no'``).

Reference result: ``TypeError: pin_memory must be a bool or None, got 1``.
Bug result: a buffer is built (``.cpu`` pageable on a CPU host, pinned on a GPU host
even for ``'no'``); no exception.
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
    # BUG: was `if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)): raise TypeError(...)`;
    # any truthy value now means "pin" (configs pass 0/1 and strings)
    if pin_memory is not None:
        pin_memory = bool(pin_memory)
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
    return make_target("b05_buffer_pin_memory_truthy", buffer_cls=CpuGpuBuffer, buffer_utils=buffer_utils_ns())
