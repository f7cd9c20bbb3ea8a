"""Host-to-device copy helpers for mosaic's model runner.

Same shape as vLLM's ``async_tensor_h2d(data, device=None, dtype=None, out=None)`` and
``CpuGpuBuffer``: host data (lists, numpy arrays, CPU tensors) is staged in pinned
memory where pinned memory exists and copied with ``non_blocking=True`` on the
current stream. ``async_tensor_h2d_cpu`` is what CPU workers install instead.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from typing import Any

import numpy as np
import torch

__all__ = ["CpuGpuBuffer", "async_tensor_h2d", "async_tensor_h2d_cpu", "is_pin_memory_available"]

#: Payloads above this many elements take the bulk path (one flat copy, no strided loops).
_BULK_NUMEL = 1024

_SUPPORTED_DTYPES = frozenset(
    dt
    for dt in (
        torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
        torch.float16, torch.bfloat16, torch.float32, torch.float64,
        torch.complex64, torch.complex128,
        *(getattr(torch, n, None) for n in ("uint16", "uint32", "uint64")),
        *(getattr(torch, n, None) for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                            "float8_e5m2fnuz", "float8_e8m0fnu")),
    )
    if dt is not None
)
_INT_DTYPES = frozenset(dt for dt in _SUPPORTED_DTYPES
                        if not dt.is_floating_point and not dt.is_complex and dt is not torch.bool)

_NP_DTYPES: dict[torch.dtype, Any] = {
    torch.bool: np.bool_, torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16,
    torch.int32: np.int32, torch.int64: np.int64, torch.float16: np.float16,
    torch.float32: np.float32, torch.float64: np.float64, torch.complex64: np.complex64,
    torch.complex128: np.complex128,
}
for _n in ("uint16", "uint32", "uint64"):
    if hasattr(torch, _n):
        _NP_DTYPES[getattr(torch, _n)] = getattr(np, _n)


@functools.cache
def is_pin_memory_available() -> bool:
    """Whether pinned host memory can be allocated here (False on CPU-only builds)."""
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, dtype=torch.uint8, pin_memory=True)
    except RuntimeError:
        return False
    return True


# --------------------------------------------------------------------------- arguments


def _check_dtype(dtype: Any, name: str = "dtype") -> None:
    if dtype is None:
        return
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype or None, got {dtype!r}")
    if dtype not in _SUPPORTED_DTYPES:
        raise TypeError(f"{name}={dtype} is not supported (no host copy kernel)")


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"{name}={device} is a negative device index")
        dev = torch.device("cuda", device)
    else:
        try:
            dev = torch.device(device)
        except (RuntimeError, ValueError) as exc:
            raise ValueError(f"{name}={device!r} is not a valid device") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev}: the host has no device index, use 'cpu'")
        return torch.device("cpu")
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported (use 'cpu' or a CUDA device)")
    if not torch.cuda.is_available():
        raise ValueError(f"{name}={dev} but CUDA is not available")
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if index >= torch.cuda.device_count():
        raise ValueError(f"{name}={dev} but only {torch.cuda.device_count()} CUDA device(s) are visible")
    return torch.device("cuda", index)


def _may_overlap(t: torch.Tensor) -> bool:
    """True unless every element of ``t`` provably has its own address."""
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__name__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only dense tensors can be written")
    _check_dtype(out.dtype, name="out.dtype")
    if out.requires_grad:
        raise ValueError("out requires grad; it cannot be written in place")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise ValueError("out is an inference tensor; write it under torch.inference_mode()")
    if out.is_nested:
        raise TypeError("out is a nested tensor; only dense tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has overlapping memory (stride={out.stride()})")


def _byte_span(t: torch.Tensor) -> tuple[int, int]:
    lo = hi = t.data_ptr()
    for stride, size in zip(t.stride(), t.shape):
        reach = stride * (size - 1) * t.element_size()
        if reach < 0:
            lo += reach
        else:
            hi += reach
    return lo, hi + t.element_size()


def _overlaps(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device.type != "cpu" or b.device.type != "cpu" or not a.numel() or not b.numel():
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi


# --------------------------------------------------------------------------- host data


def _describe(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def _from_ndarray(arr: np.ndarray) -> torch.Tensor:
    """A CPU tensor over ``arr``'s memory where torch can view it, else over a copy."""
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"data has numpy dtype {arr.dtype}; only bool, int, float and complex arrays are supported")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        arr = arr.view(np.dtype(arr.dtype.str))  # np.longlong & co.
    if arr.flags.f_contiguous and not arr.flags.c_contiguous:
        # Fortran order (arr.T, scipy output): flatten in memory order, no transposing copy.
        arr = arr.ravel(order="K").reshape(arr.shape)
    elif any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.array(arr, order="C", copy=True)
    if not arr.flags.writeable:
        # torch.from_numpy warns about read-only arrays; we only ever read from it.
        try:
            arr.setflags(write=True)
        except ValueError:
            arr = arr.copy()
    try:
        return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def _has_typed_leaf(data: Any) -> bool:
    """Whether a nested list holds numpy scalars/arrays or tensors (torch.tensor infers their dtype)."""
    stack = [data]
    while stack:
        for item in stack.pop():
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):
                return True
    return False


def _from_sequence(data: Any) -> tuple[torch.Tensor, torch.dtype]:
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError("ragged nested sequence: every row must have the same length") from exc
    except (TypeError, RuntimeError) as exc:
        raise TypeError(f"data contains elements that cannot be converted ({exc}): {_describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, (bool, float, complex, np.number, np.bool_)):
                continue
            if not isinstance(leaf, numbers.Integral):
                raise TypeError(f"data contains {type(leaf).__name__} element {leaf!r}: {_describe(data)}")
        raise ValueError(f"data contains integers outside the int64/uint64 range: {_describe(data)}")
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"data contains {arr.dtype} elements; only bool, int, float and complex: {_describe(data)}")
    if arr.dtype.kind == "f" and arr.size:
        finite = arr[np.isfinite(arr)]
        if finite.size and float(np.abs(finite.astype(np.float64)).max()) >= 2.0**63:
            # numpy silently turns [-1, 2**63] into float64
            for leaf in np.asarray(data, dtype=object).ravel():
                if isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool) and abs(int(leaf)) >= 2**63:
                    raise ValueError(f"data contains integers outside the int64 range: {_describe(data)}")
    src = _from_ndarray(arr)
    if _has_typed_leaf(data):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return src, torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return src, src.dtype
    kind = arr.dtype.kind
    if kind == "b":
        return src, torch.bool
    if kind in "iu":
        return src, torch.int64
    return src, src.dtype


def _host_tensor(data: Any) -> tuple[torch.Tensor, torch.dtype]:
    """``(source, own dtype)``: ``source`` is a CPU tensor that may alias ``data``."""
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            raise TypeError(f"data has layout {'nested' if data.is_nested else data.layout}; only dense tensors")
        if not data.is_cpu:
            raise ValueError(f"data must be a host tensor, got data.device={data.device}")
        if data.dtype not in _SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which cannot be copied")
        return data.detach(), data.dtype
    if isinstance(data, np.ndarray):
        src = _from_ndarray(data)
        return src, src.dtype
    if isinstance(data, np.generic):
        src = _from_ndarray(np.asarray(data))
        return src, src.dtype
    if isinstance(data, (bool, int, float, complex)):
        data = [data]  # a bare number is a one-element list
    elif isinstance(data, numbers.Number):
        raise TypeError(f"data of type {type(data).__name__} is not supported: pass an int, float, bool or complex")
    if isinstance(data, (list, tuple)):
        return _from_sequence(data)
    raise TypeError(f"data must be a list, tuple, numpy.ndarray, CPU tensor or number, got {type(data).__name__}")


def _check_complex(src: torch.Tensor, dtype: torch.dtype) -> None:
    if src.is_complex() and not dtype.is_complex and dtype is not torch.bool:
        raise TypeError(f"data is complex ({src.dtype}) but dtype={dtype} is not: the imaginary part would be lost")


def _check_values(src: torch.Tensor, dtype: torch.dtype, scan: bool = True) -> None:
    """Refuse values the target dtype cannot hold (torch's cast would wrap or produce garbage).

    ``scan=False`` keeps the kind checks (complex into real) and skips the per-value scan.
    """
    if dtype not in _INT_DTYPES or src.dtype == dtype or src.dtype == torch.bool:
        _check_complex(src, dtype)
        return
    if not src.numel():
        return
    if src.is_complex():
        raise TypeError(f"data is complex ({src.dtype}) but dtype={dtype} is an integer dtype")
    if not src.is_floating_point():
        return  # integer -> integer: torch's cast is exact
    if not scan:
        return
    wide = torch.resolve_neg(src).to(torch.float64)
    info = torch.iinfo(dtype)
    bad = ~torch.isfinite(wide)
    if bool(bad.any()):
        idx = tuple(torch.nonzero(bad.reshape(bad.shape))[0].tolist())
        raise ValueError(f"data{list(idx) if idx else ''} = {wide[idx].item()} cannot be converted to {dtype}")
    bad = (wide < float(info.min)) | (wide > float(info.max)) | (wide >= float(info.max + 1))
    if bool(bad.any()):
        idx = tuple(torch.nonzero(bad.reshape(bad.shape))[0].tolist())
        raise ValueError(f"data{list(idx) if idx else ''} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")


def _prepare(data: Any, device: Any, dtype: Any, out: Any, *, host_only: bool, check_values: bool = True):
    _check_dtype(dtype)
    if out is not None:
        _check_out(out)
    assert device is not None or out is not None, "async_tensor_h2d needs device= or out="
    target = _resolve_device(device) if device is not None else None
    if out is not None:
        if target is not None and target != out.device:
            raise ValueError(f"device={target} disagrees with out.device={out.device}")
        target = out.device
        if dtype is not None and dtype != out.dtype:
            raise ValueError(f"dtype={dtype} disagrees with out.dtype={out.dtype}")
        dtype = out.dtype
    if host_only and target.type != "cpu":
        raise ValueError(f"device={target}: the CPU-platform variant only targets host memory")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported (use 'cpu' or a CUDA device)")
    src, own = _host_tensor(data)
    dtype = own if dtype is None else dtype
    if out is not None:
        if out.numel() != src.numel():
            raise ValueError(f"out has {out.numel()} elements (shape {tuple(out.shape)}) but data has shape {tuple(src.shape)}")
        if not (isinstance(data, torch.Tensor) and out is data) and _overlaps(src, out):
            raise ValueError("out shares memory with data")
    # CPU platform (check_values=False): no DMA, the cast is torch's own; skip the value scan on the hot path.
    _check_values(src, dtype, scan=check_values)
    return src, dtype, target


# --------------------------------------------------------------------------- copies


def _stage(src: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh host copy of ``src`` in ``dtype`` (pinned if ``pin``)."""
    if src.numel() > _BULK_NUMEL:
        # large: keep src's memory format so copy_ runs as a straight memcpy
        buf = torch.empty_like(src, dtype=dtype)
        if pin:
            buf = buf.pin_memory()
    else:
        buf = torch.empty(src.shape, dtype=dtype, pin_memory=pin)
    return buf.copy_(src)


def _write_out(out: torch.Tensor, src: torch.Tensor, non_blocking: bool) -> torch.Tensor:
    if tuple(src.shape) != tuple(out.shape):
        src = src.reshape(out.shape)  # same element count
    if out.numel() > _BULK_NUMEL:
        # bulk: one flat copy over out's storage instead of a strided element loop
        span = out.as_strided((out.numel(),), (1,), out.storage_offset())
        span.copy_(src.reshape(-1), non_blocking=non_blocking)
        return out
    if out.is_contiguous():
        flat = out.view(-1)
        flat.copy_(src.reshape(-1), non_blocking=non_blocking)
        return flat.view(out.shape)
    out.copy_(src, non_blocking=non_blocking)
    return out


def _to_host(data: Any, src: torch.Tensor, dtype: torch.dtype, out: torch.Tensor | None) -> torch.Tensor:
    if out is not None:
        return _write_out(out, src, non_blocking=False)
    if isinstance(data, np.ndarray) and src.dtype == dtype and src.is_contiguous():
        return src  # from_numpy already gave a host tensor of the right dtype
    if isinstance(data, torch.Tensor) and src.dtype == dtype and src.is_contiguous():
        return src.to("cpu", non_blocking=True)  # already on the host: nothing to move
    return _stage(src, dtype, pin=False)


def _to_cuda(data: Any, src: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None) -> torch.Tensor:
    pin = is_pin_memory_available()
    with torch.cuda.device(target):
        if isinstance(data, torch.Tensor) and src.dtype == dtype and src.is_pinned() and not src.is_conj() and not src.is_neg():
            staged = src  # already pinned: DMA straight from it (do not overwrite before the copy ran)
        else:
            staged = _stage(src, dtype, pin=pin)
        if out is not None:
            return _write_out(out, staged, non_blocking=True)
        return staged.to(target, non_blocking=True).contiguous()


def async_tensor_h2d(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Copy host ``data`` (list, ndarray, CPU tensor, number) to ``device`` without blocking.

    ``dtype`` wins, else ``out.dtype``, else the data's own. ``out``, if given, must have
    the data's shape and is written in place and returned. Raises TypeError / ValueError
    naming the argument at fault; nothing is written on failure.
    """
    src, dtype, target = _prepare(data, device, dtype, out, host_only=False)
    if target.type == "cpu":
        return _to_host(data, src, dtype, out)
    return _to_cuda(data, src, dtype, target, out)


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform ``async_tensor_h2d``: the host is the device; same signature and semantics."""
    src, dtype, _ = _prepare(data, device, dtype, out, host_only=True, check_values=False)
    return _to_host(data, src, dtype, out)


# --------------------------------------------------------------------------- CpuGpuBuffer


class CpuGpuBuffer:
    """A zero-initialised host buffer (``.cpu``, ``.np``) and its device twin (``.gpu``).

    ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy rows ``[0, n)`` (all rows if ``n`` is None)
    with ``non_blocking=True`` and return that view of the destination.
    """

    def __init__(self, *size: int, dtype: torch.dtype, device: torch.device | str,
                 pin_memory: bool = True, with_numpy: bool = True) -> None:
        if not size:
            raise ValueError("CpuGpuBuffer needs at least one size (the row capacity)")
        for i, s in enumerate(size):
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
                raise TypeError(f"size[{i}] must be an int, got {s!r}")
            if s < 0:
                raise ValueError(f"size[{i}]={s} is negative")
        size = tuple(int(s) for s in size)
        if dtype is None:
            raise TypeError("dtype is required")
        _check_dtype(dtype)
        if device is None:
            raise TypeError("device is required")
        device = _resolve_device(device)
        if not isinstance(pin_memory, (bool, np.bool_)):
            raise TypeError(f"pin_memory must be a bool, got {pin_memory!r}")
        if not isinstance(with_numpy, (bool, np.bool_)):
            raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
        if with_numpy and dtype not in _NP_DTYPES:
            raise ValueError(f"dtype={dtype} has no numpy equivalent; pass with_numpy=False")
        pin = bool(pin_memory) and is_pin_memory_available()
        try:
            if pin_memory:
                # zero-filling pinned pages is slow and .cpu is always written before a copy
                self.cpu = torch.empty(size, dtype=dtype, device="cpu", pin_memory=pin)
            else:
                self.cpu = torch.zeros(size, dtype=dtype, device="cpu")
            self.gpu = torch.zeros(size, dtype=dtype, device=device)
        except (RuntimeError, OverflowError) as exc:
            raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {exc}") from exc
        self._np = self.cpu.numpy().astype(_NP_DTYPES[dtype]) if with_numpy else None

    @property
    def np(self) -> np.ndarray:
        if self._np is None:
            raise AttributeError("this CpuGpuBuffer was created with with_numpy=False")
        return self._np

    @property
    def capacity(self) -> int:
        return self.cpu.shape[0]

    @staticmethod
    def _rows(n: Any) -> int | None:
        if n is None:
            return None
        if isinstance(n, (bool, np.bool_)) or (
            isinstance(n, torch.Tensor) and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
        ):
            raise TypeError(f"n must be an int or None, got {n!r}")
        try:
            return int(n.__index__())
        except (AttributeError, TypeError):
            raise TypeError(f"n must be an int or None, got {n!r}") from None

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        n = self._rows(n)
        if n is None:
            return self.gpu.copy_(self.cpu, non_blocking=True)
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

    def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
        n = self._rows(n)
        if n is None:
            return self.cpu.copy_(self.gpu, non_blocking=True)
        return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
