"""b13 (CPU): ``.np`` is made only when ``with_numpy is True``; a numpy bool (accepted by the type check) gives no view.

Where: buffer.py, ``CpuGpuBuffer.__init__`` (the last line).
Change: ``self._np = self.cpu.numpy() if with_numpy else None`` -> ``... if with_numpy is True else None``.
Why plausible: a linter-style "explicit is better" edit next to the ``isinstance(with_numpy, (bool, np.bool_))``
check; ``np.True_ is True`` is False, which nobody tests.
Promise broken: CpuGpuBuffer docstring: "with_numpy: also expose .np, a numpy.ndarray sharing memory with
.cpu" (the type check accepts ``np.bool_``); README buffer: "``.np`` aliases ``.cpu``".
Smallest input:
    b = CpuGpuBuffer(4, dtype=torch.int32, device="cpu", with_numpy=np.True_)    # e.g. a flag read from a numpy config array
    b.np
Reference: array([0, 0, 0, 0], dtype=int32) sharing memory with b.cpu. Bug: AttributeError "this CpuGpuBuffer
was created with with_numpy=False and has no .np view".
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._buf import buffer_subclass
from ._common import fork, fork_target_full

TAG = "b13"


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
    from .h2d import _resolve_device

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
            self.cpu = torch.zeros(size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available())
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy is True else None  # BUG: was `if with_numpy`


def buffer_cls():
    return buffer_subclass(TAG, __init__=__init__)


def target() -> Target:
    return fork_target_full("b13_with_numpy_is_true", fork(TAG), buffer_cls=buffer_cls())
