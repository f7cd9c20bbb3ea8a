"""b23 (GPU-only): ``CpuGpuBuffer`` pins ``.cpu`` only when its twin is on a CUDA device.

Where: ``buffer.CpuGpuBuffer.__init__``, the allocation of ``.cpu``. The reference pins it
when asked and available: ``pin_memory=bool(pin_memory) and pin_memory_available()``. The
bug adds ``and device.type == "cuda"`` ("a host twin is never the source of a DMA: don't
lock pages for it").

Why realistic: a memory saving that reads obviously right; but the documented contract is
"pinned iff asked and available", and engines build host-twin buffers on GPU machines too
(CPU-offloaded state, buffers handed to a side process or copied to a device later with
``non_blocking=True``), which then get a pageable ``.cpu`` that they asked to be pinned: the
copies they expect to be asynchronous block, and ``is_pinned()`` says False.

On a CPU-only host pinning is unavailable, so ``.cpu`` is pageable for both: every call
behaves as the control. On one CUDA GPU: ``CpuGpuBuffer(4, dtype=torch.int32,
device="cpu", pin_memory=True).cpu.is_pinned()`` is ``True`` for the reference and
``False`` for the bug (and with ``pin_memory`` left out, the default "pinned where
available", too).
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
                size,
                dtype=dtype,
                device="cpu",
                # BUG: `and device.type == "cuda"` added (a host twin is never a DMA source)
                pin_memory=bool(pin_memory) and pin_memory_available() and device.type == "cuda",
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, _buffer, contextlib=contextlib, operator=operator)


def target() -> Target:
    f = fork("b23")
    return make_target(
        "b23_buffer_pin_cuda_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b23"),
    )
