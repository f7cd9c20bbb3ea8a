"""b11 (CPU): ``CpuGpuBuffer`` checks numpy support of ``dtype`` before checking that ``dtype`` is a dtype at all.

Where: buffer.py, ``CpuGpuBuffer.__init__``.
Change: the ``with_numpy and dtype not in _NUMPY_DTYPES`` ValueError block moved up, before
``check_dtype_arg(dtype)`` and the ``dtype is None`` TypeError ("fail fast on the cheap set lookup").
Why plausible: a reordering of independent-looking validations; every valid dtype and bfloat16/float8
behave as before.
Promise broken: CpuGpuBuffer docstring, Raises: "TypeError: ... a dtype that is not a supported torch
dtype, a missing device ..."; ``check_dtype_arg``'s "dtype is required" TypeError; README bad-input
(documented exception per argument).
Smallest input:
    CpuGpuBuffer(4, dtype=None, device="cpu")          # or dtype=np.float32, dtype="int32"
Reference: TypeError "dtype is required: pass a torch.dtype such as torch.int32". Bug: ValueError
"dtype=None has no numpy equivalent, so .np cannot be made ...".
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._buf import buffer_subclass
from ._common import fork, fork_target_full

TAG = "b11"


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
    if with_numpy and dtype not in _NUMPY_DTYPES:  # BUG: moved up from after the pin_memory/with_numpy checks
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
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


def buffer_cls():
    return buffer_subclass(TAG, __init__=__init__)


def target() -> Target:
    return fork_target_full("b11_buffer_numpy_check_first", fork(TAG), buffer_cls=buffer_cls())
