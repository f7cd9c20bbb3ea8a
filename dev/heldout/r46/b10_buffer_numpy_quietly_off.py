"""b10 (CPU): ``with_numpy=True`` is quietly dropped for dtypes numpy does not have.

Where: ``buffer.CpuGpuBuffer.__init__``. The reference refuses ``with_numpy=True`` with a
dtype numpy lacks (bfloat16, float8) with ``ValueError`` naming the dtype, at
construction. The bug replaces the refusal by ``with_numpy = with_numpy and dtype in
_NUMPY_DTYPES`` ("bf16 buffers are built with the default with_numpy=True all over the
runner; just skip the view").

Why realistic: a friendlier constructor after a crash report; the buffer is built, and the
failure moves to the first ``.np`` access (an ``AttributeError`` far from the cause), or
never shows where ``.np`` was meant to be checked.

Smallest input: ``CpuGpuBuffer(4, dtype=torch.bfloat16, device="cpu")``. Reference:
``ValueError: dtype=torch.bfloat16 has no numpy equivalent ...``. Bug: a buffer, whose
``.np`` raises ``AttributeError`` (created "with with_numpy=False").
"""

from __future__ import annotations

import contextlib
import operator

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
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
    from h2d_contracts.h2d_impl.h2d import _resolve_device

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    # BUG: was `if with_numpy and dtype not in _NUMPY_DTYPES: raise ValueError(...)`
    with_numpy = with_numpy and dtype in _NUMPY_DTYPES  # no numpy dtype (bf16, fp8): no .np view
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard:
            if pin_memory is None:
                pin_memory = pin_memory_available()
            self.cpu = torch.zeros(size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available())
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, _buffer, contextlib=contextlib, operator=operator)


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_buffer_numpy_quietly_off",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b10"),
    )
