"""The independent "reference conversion" the contracts compare against, and value checks.

The oracle is plain torch/numpy semantics, written without ``h2d_impl``: lists go
through ``torch.tensor(data, dtype=...)`` (the reference goes through numpy), arrays
through a copied ``torch.from_numpy``, tensors through ``Tensor.to``. On valid inputs
(every value representable in the resolved dtype) all of these agree bit for bit.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, cast

import numpy as np
import torch
from torch.testing import assert_close

from .violations import fail

__all__ = [
    "assert_same_values",
    "expected_tensor",
    "own_dtype",
    "resolve_device",
    "resolve_dtype",
    "storage_span",
]


def own_dtype(data: Any) -> torch.dtype:
    """The dtype ``data`` has on its own (torch.tensor's inference for lists and scalars)."""
    if isinstance(data, torch.Tensor):
        return data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return torch.from_numpy(_as_native(np.zeros(0, dtype=np.asarray(data).dtype))).dtype
    with warnings.catch_warnings():  # torch.tensor on a list of ndarrays: "extremely slow" (it is fine here)
        warnings.simplefilter("ignore", UserWarning)
        try:
            return torch.tensor(data, device="cpu").dtype
        except (TypeError, ValueError, RuntimeError):
            if not _has_tensor_or_array(data):  # (tensors, arrays and numpy scalars returned above)
                raise
            # torch.tensor refuses a list of tensors of several elements and 0-d arrays beside numbers: numpy's dtype
            # for the list (docs/reference.md, "What it promises": dtype)
            return own_dtype(np.asarray(data))


def resolve_dtype(data: Any, kwargs: dict[str, Any]) -> torch.dtype:
    """The resolution order of docs/reference.md: ``dtype=``, else ``out.dtype``, else the data's own."""
    if kwargs.get("dtype") is not None:
        return cast(torch.dtype, kwargs["dtype"])
    if kwargs.get("out") is not None:
        return cast(torch.dtype, kwargs["out"].dtype)
    return own_dtype(data)


def resolve_device(kwargs: dict[str, Any]) -> torch.device:
    """The device a call targets, with an explicit CUDA index (bare "cuda" = current device)."""
    if kwargs.get("out") is not None:
        return cast(torch.device, kwargs["out"].device)
    dev = kwargs["device"]
    dev = torch.device("cuda", int(dev)) if isinstance(dev, (int, np.integer)) else torch.device(dev)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def expected_tensor(data: Any, dtype: torch.dtype) -> torch.Tensor:
    """A fresh contiguous CPU tensor: ``data`` converted to ``dtype`` by torch's own rules.

    A bool result holds canonical bytes (0 or 1), as every copy torch makes writes them: a bool tensor or array whose
    bytes are 2-255 (a uint8 buffer viewed as bool) is True there, stored as 1 (``Tensor.clone``, ``copy_``).
    """
    result = _converted(data, dtype)
    return result.view(torch.uint8).ne(0) if result.dtype is torch.bool else result


def _converted(data: Any, dtype: torch.dtype) -> torch.Tensor:
    if isinstance(data, torch.Tensor):
        return data.detach().to("cpu", copy=True).to(dtype).contiguous()
    if isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data, copy=True, order="C")
        return torch.from_numpy(_as_native(arr)).to(dtype)
    if isinstance(data, (list, tuple)) and any(isinstance(v, np.ndarray) for v in data):
        # A list of ndarrays: values through numpy, since torch.tensor drops the empty
        # inner dimensions of arrays inside a list ([np.zeros((0, 0))] -> shape (1, 0),
        # numpy and the data say (1, 0, 0)); the dtype still comes from torch.tensor (own_dtype).
        arr = np.array(data, copy=True)
        return torch.from_numpy(_as_native(arr)).to(dtype)
    if _is_integer_dtype(dtype):
        # torch.tensor refuses a float whose value lies past an integer dtype's range before
        # truncating it (127.5 into int8), and builds uint64 only from Python ints: floats are
        # truncated toward zero first (C's, numpy's and Tensor.to's conversion), ints stay exact.
        data = _truncated(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            return torch.tensor(data, dtype=dtype, device="cpu")
        except (TypeError, ValueError, RuntimeError):
            if not _has_tensor_or_array(data):  # (tensors, arrays and numpy scalars converted above)
                raise
            # a list torch.tensor refuses (tensors of several elements, 0-d arrays beside numbers): through numpy
            return torch.from_numpy(_as_native(np.array(data, copy=True))).to(dtype)


def _has_tensor_or_array(data: Any) -> bool:
    """Whether a (nested) list holds a tensor, an ndarray or a numpy scalar anywhere."""
    if isinstance(data, (list, tuple)):
        return any(_has_tensor_or_array(v) for v in data)
    return isinstance(data, (torch.Tensor, np.ndarray, np.generic))


def _as_native(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``arr`` in native byte order under its sized type: ``np.ulonglong``'s and ``np.longlong``'s arrays are 'Q' and
    'q', which ``torch.from_numpy`` refuses though their bytes are uint64's and int64's ('<u8', '<i8'); numpy counts
    the two equal, so ``astype`` keeps the C name and only a view changes it."""
    dt = arr.dtype
    native = (np.dtype(dt.str) if dt.fields is None and dt.kind in "biufc" else dt).newbyteorder("=")
    return arr.view(native) if dt == native else arr.astype(native)


def _is_integer_dtype(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is torch.bool)


def _truncated(data: Any) -> Any:
    """``data`` (nested lists and tuples of scalars) with every float leaf truncated toward zero to an int."""
    if isinstance(data, (list, tuple)):
        return [_truncated(v) for v in data]
    if isinstance(data, (float, np.floating)) and math.isfinite(data):
        return math.trunc(float(data))
    return data


_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _bits(t: torch.Tensor) -> torch.Tensor:
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.contiguous().view(_BITS[t.element_size()])


def assert_same_values(
    actual: torch.Tensor, expected: torch.Tensor, *, contract: str, call: str, nan_payloads: bool = False
) -> None:
    """Exact equality: shape, dtype, then values bit for bit (NaN == NaN, -0.0 != 0.0, a bool's byte 0 or 1).

    ``torch.testing.assert_close(rtol=0, atol=0, equal_nan=True)`` gives the readable
    mismatch report (count, largest difference, its index); the bitwise pass after it
    catches what assert_close forgives: signed zeros always, and NaN payloads when
    ``nan_payloads`` is True. Pass it for pure copies (data already of the target dtype:
    every byte must survive); conversions may legitimately produce different NaN
    payloads (torch's vectorised float64 -> bfloat16 path writes 0xFFFF, its scalar path
    0x7FC0, as a fuzz campaign found), so NaN positions are compared as NaN only.
    """
    __tracebackhide__ = True
    # values as they read: a result may carry the negative or conjugate bit (a target that hands back a lazy view),
    # which the bitwise views below cannot take
    actual = actual.detach().cpu().resolve_neg().resolve_conj()
    expected = expected.resolve_neg().resolve_conj()
    if tuple(actual.shape) != tuple(expected.shape):
        fail(contract, "result shape", got=tuple(actual.shape), expected=tuple(expected.shape), call=call)
    if actual.dtype != expected.dtype:
        fail(contract, "result dtype", got=actual.dtype, expected=expected.dtype, call=call)
    if actual.numel() == 0:
        return
    if torch.equal(_bits(actual), _bits(expected)):
        return  # the same bits everywhere (the common case, in one vectorised pass): nothing to report
    try:
        assert_close(actual, expected, rtol=0, atol=0, equal_nan=True, check_stride=False)
    except AssertionError as exc:
        wide = torch.complex128 if expected.is_complex() else torch.float64
        # integers compared as they are: through float64, 2**53 + 1 and 2**53 are equal, and no index was named
        exact = actual.dtype is torch.bool or not (actual.is_floating_point() or actual.is_complex())
        a, e = (actual, expected) if exact else (actual.to(wide), expected.to(wide))
        differ = a != e
        if a.is_floating_point() or a.is_complex():
            differ &= ~(torch.isnan(a) & torch.isnan(e))
        at = tuple(torch.nonzero(differ)[0].tolist()) if differ.any() else ()
        summary = "; ".join(line.strip() for line in str(exc).splitlines()[1:] if line.strip())
        # the values at the first differing index, then torch.testing's summary (count, greatest difference)
        fail(
            contract,
            f"result values differ from the reference conversion at index {at} ({summary})",
            got=actual[at].item() if at or actual.dim() == 0 else "?",
            expected=expected[at].item() if at or expected.dim() == 0 else "?",
            call=call,
        )
    if (actual.is_floating_point() or actual.is_complex()) and not nan_payloads:
        nan = torch.isnan(expected.to(torch.complex128 if expected.is_complex() else torch.float64))
        if expected.is_complex():
            nan = nan.unsqueeze(-1).expand(*nan.shape, 2)
        diff = (_bits(actual) != _bits(expected)) & ~nan
    else:
        diff = _bits(actual) != _bits(expected)
    if diff.any():
        idx = tuple(torch.nonzero(diff)[0].tolist())
        fail(
            contract,
            f"result bits differ at index {idx[: actual.dim()]}: {_bits_kind(actual, expected, idx)}",
            got=_value_and_bits(actual, idx),
            expected=_value_and_bits(expected, idx),
            call=call,
        )


def _bits_kind(actual: torch.Tensor, expected: torch.Tensor, idx: tuple[int, ...]) -> str:
    """What differs at ``idx`` (an index of :func:`_bits`' view) of two elements that compare equal: a bool byte other
    than 0 and 1, the sign of a zero, a NaN payload, or other bits. Named apart, so an expectation for one kind never
    covers another (a message listing all three let vLLM's "bool byte" expectation cover a signed zero)."""
    if actual.dtype is torch.bool:
        return "a bool byte other than 0 and 1"
    a, e = (torch.view_as_real(t) if t.is_complex() else t for t in (actual, expected))
    x, y = float(a[idx].item()), float(e[idx].item())
    if math.isnan(x) and math.isnan(y):
        return "a NaN payload changed by a pure copy"
    if x == 0.0 and y == 0.0:
        return "the sign of a zero (-0.0 is not 0.0)"
    return "the same value in other bits"


def _value_and_bits(t: torch.Tensor, idx: tuple[int, ...]) -> str:
    """The element of ``t`` at ``idx`` (an index of :func:`_bits`' view: one more dimension for complex) as its value
    and its bit pattern in hex (an outside user read float32's -0.0 shown as the int32 -2147483648)."""
    bits = _bits(t)
    width = bits.element_size() * 8
    return f"{t[idx[: t.dim()]].item()!r} (bits {int(bits[idx].item()) & ((1 << width) - 1):#0{width // 4 + 2}x})"


def storage_span(obj: Any) -> tuple[int, int] | None:
    """``[start, end)`` host address range of the memory behind a tensor or array (None: no memory)."""
    if isinstance(obj, torch.Tensor):
        if obj.device.type != "cpu" or obj.layout != torch.strided:
            return None
        storage = obj.untyped_storage()
        return (storage.data_ptr(), storage.data_ptr() + storage.nbytes())
    if isinstance(obj, np.ndarray):
        low, high = np.byte_bounds(obj) if hasattr(np, "byte_bounds") else np.lib.array_utils.byte_bounds(obj)
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        blow, bhigh = np.byte_bounds(base) if hasattr(np, "byte_bounds") else np.lib.array_utils.byte_bounds(base)
        return (min(low, blow), max(high, bhigh))
    return None
