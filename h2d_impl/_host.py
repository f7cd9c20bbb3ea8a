"""Host-side preparation shared by every entry point of the reference.

Turns the ``data`` argument of :func:`h2d_impl.async_tensor_h2d` (a nested list, a
``numpy.ndarray``, a CPU ``torch.Tensor`` or a Python/numpy scalar) into a *source*
CPU tensor, resolves the target dtype and checks that every value is representable
in it, all before anything is written anywhere. Errors name the argument and echo the
offending input (``TypeError`` for a wrong kind of thing, ``ValueError`` for a wrong
value), never ``assert``.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from typing import Any

import numpy as np
import torch

__all__ = [
    "SUPPORTED_DTYPES",
    "pin_memory_available",
    "as_source_tensor",
    "check_dtype_arg",
    "check_representable",
    "describe",
]

#: dtypes the reference copies. Quantized, complex32 and float4 dtypes have no CPU
#: copy kernel in torch, so they are rejected up front with a TypeError.
SUPPORTED_DTYPES: frozenset[torch.dtype] = frozenset(
    dt
    for dt in (
        [
            torch.bool,
            torch.uint8,
            torch.int8,
            torch.int16,
            torch.int32,
            torch.int64,
            torch.float16,
            torch.bfloat16,
            torch.float32,
            torch.float64,
            torch.complex64,
            torch.complex128,
        ]
        + [getattr(torch, n, None) for n in ("uint16", "uint32", "uint64")]
        + [
            getattr(torch, n, None)
            for n in (
                "float8_e4m3fn",
                "float8_e5m2",
                "float8_e4m3fnuz",
                "float8_e5m2fnuz",
                "float8_e8m0fnu",
            )
        ]
    )
    if dt is not None
)

#: Dtypes whose numpy dtype is the same type (``h2d._serial_copy`` copies them with numpy).
_NUMPY_SAME = frozenset(
    {
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.uint16,
        torch.uint32,
        torch.uint64,
        torch.float16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
    }
)
_NUMPY_INTS = frozenset(
    {torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64}
)
#: Conversions where numpy's cast is C's, as torch's is, for the values validation lets
#: through (integers in range, no NaN into integers): integers among themselves, to bool and
#: to float32/64; float32/64 to integers and bool; float32 to float64. Never from bool (a
#: bool byte that is neither 0 nor 1 is read as 1 by torch, kept by numpy), nor anything
#: with float16 (torch rounds float64 -> float16 through float32, numpy directly) or complex,
#: nor float64 -> float32: those go to torch in pieces.
_NUMPY_CASTS = frozenset(
    [(a, b) for a in _NUMPY_INTS for b in _NUMPY_INTS | {torch.bool, torch.float32, torch.float64}]
    + [(a, b) for a in (torch.float32, torch.float64) for b in _NUMPY_INTS | {torch.bool}]
    + [(torch.float32, torch.float64)]
)


_INTEGER_DTYPES = frozenset(
    dt for dt in SUPPORTED_DTYPES if not dt.is_floating_point and not dt.is_complex and dt is not torch.bool
)


@functools.cache
def pin_memory_available() -> bool:
    """Whether page-locked (pinned) host memory can be allocated in this process.

    Models vLLM's ``is_pin_memory_available()``: False on CPU-only torch builds (where
    ``torch.empty(..., pin_memory=True)`` raises ``RuntimeError``) and wherever CUDA
    is not usable. Detected once, by trying a one-byte pinned allocation; cached.

    Returns:
        bool: True when ``pin_memory=True`` allocations succeed.
    """
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, dtype=torch.uint8, device="cpu", pin_memory=True)  # the host, whatever the default device
    except RuntimeError:
        return False
    return True


def describe(obj: Any) -> str:
    """A short, reproducible description of a data/out argument for error messages.

    Never raises for a value Python cannot print: an int past the interpreter's integer-string limit
    (``sys.get_int_max_str_digits()``) is described by its container's type, and the limit, a process-wide setting,
    is left as it is.
    """
    if isinstance(obj, torch.Tensor):
        pinned = ""
        if obj.device.type == "cpu" and obj.layout == torch.strided and pin_memory_available():
            pinned = ", pinned" if obj.is_pinned() else ", pageable"
        return (
            f"Tensor(shape={tuple(obj.shape)}, dtype={obj.dtype}, device={obj.device}, "
            f"stride={obj.stride() if obj.layout == torch.strided else obj.layout}{pinned})"
        )
    if isinstance(obj, np.ndarray):
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype}, strides={obj.strides})"
    try:
        text = repr(obj)
    except ValueError:  # an int past sys.get_int_max_str_digits() (4,300 digits): repr refuses it, the limit stays
        return f"<{type(obj).__name__} holding an int too long to print>"
    return text if len(text) <= 80 else text[:77] + "..."


def check_dtype_arg(dtype: Any, name: str = "dtype") -> None:
    """Raise TypeError unless ``dtype`` is None or a torch dtype the reference copies."""
    if dtype is None:
        return
    if not isinstance(dtype, torch.dtype):
        hint = ""
        if isinstance(dtype, (np.dtype, type)) or isinstance(dtype, str):
            hint = " (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)"
        raise TypeError(f"{name} must be a torch.dtype or None, got {dtype!r}{hint}")
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{name}={dtype} is not supported: torch has no host copy kernel for it")


# numpy dtype kind -> accepted. 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex.
_NUMPY_KINDS = frozenset("biufc")


#: ``dtype.char`` of the numpy dtypes ``torch.from_numpy`` views as they are (canonical
#: integer chars only: ``np.longlong`` ('q' on Linux) aliases int64 ('l'); older torch
#: releases refused it, torch 2.13 accepts it; it stays on the general route, which views it as int64).
_VIEWABLE_CHARS = frozenset(
    np.dtype(t).char
    for t in (
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
)


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        # The common case (a writeable, native, 0-d or unit-stride 1-d array) in one test:
        # the checks below cost about 0.8 us of a small call (as_source_tensor of 16 int32:
        # 1.66 -> 0.90 us on the CPU machine, bench/host_prep_timings.py; docs/performance.md).
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        # Non-native byte order: torch.from_numpy refuses it; swap into native order.
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        # np.longlong / np.ulonglong alias int64 / uint64 but torch.from_numpy refuses
        # them (numpy builds them for Python ints of 2**63 and up): view as the canonical type.
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        # Negative strides (e.g. a[::-1]) and strides that are not a multiple of the item
        # size (a field of a structured array): torch tensors cannot express them. A fresh
        # C-order copy, not np.ascontiguousarray: numpy counts an array whose only odd
        # strides are on size-1 dimensions as contiguous and returns it unchanged
        # (np.flip(np.array([7])) keeps its stride -8), which torch.from_numpy refuses.
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        # torch warns about read-only arrays because a tensor could write through; the
        # reference only ever reads from the source.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


#: Leaf types whose dtype inference numpy and torch.tensor agree on.
_PLAIN_LEAVES = frozenset({bool, int, float, complex})


def _has_typed_leaf(data: Any) -> bool:
    """Whether a nested list/tuple holds a numpy scalar, an ndarray or a tensor anywhere among its elements.

    One C-level ``set(map(type, level))`` per nesting level settles the common case (only
    Python numbers) without a Python loop over the elements: 4096 ints cost ~76 us
    instead of ~970 us with a per-element loop (measured on this CPU machine).
    """
    stack = [data] if isinstance(data, (list, tuple)) else []  # a bare Python number has no leaves
    while stack:
        level = stack.pop()
        if set(map(type, level)) <= _PLAIN_LEAVES:
            continue
        for item in level:
            if type(item) in _PLAIN_LEAVES:
                continue
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):
                return True
    return False


def _list_to_array(data: Any) -> np.ndarray:
    """Build a numpy array from a (nested) list/tuple/scalar, rejecting ragged or non-numeric input."""
    try:
        arr = np.asarray(data)
    except ValueError as exc:  # ragged nesting: numpy>=1.24 raises instead of making objects
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc
    except (TypeError, RuntimeError) as exc:  # e.g. bfloat16 or requires_grad tensors inside a list
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {describe(leaf)}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):
        # numpy turns a mix of ints below 2**63 and ints >= 2**63 into float64 silently. Ints alone, none
        # negative, all below 2**64, are uint64 values (torch.tensor(data, dtype=torch.uint64) takes them);
        # a mix with negative ints or with floats is refused, as torch.tensor refuses it.
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


#: numpy dtype and torch.tensor's inferred dtype (None: the default dtype) of a flat list
#: whose elements are all of one of these exact types.
_FLAT_KINDS: dict[type, tuple[np.dtype, torch.dtype | None]] = {
    int: (np.dtype(np.int64), torch.int64),
    float: (np.dtype(np.float64), None),
    bool: (np.dtype(np.bool_), torch.bool),
}


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    """``(source, own_dtype)`` of a non-empty flat list or tuple of one exact type among int, float and bool; None otherwise.

    The hot path's lists (token ids, positions, slot mappings): one ``set(map(type, ...))``
    and one ``np.array(..., dtype=...)`` decide and convert (``as_source_tensor`` of 16 ints:
    1.8 us on the CPU machine, 3.3 us by the general route; measured by bench/host_prep_timings.py). The values and dtype are the
    general route's: ``np.asarray`` makes int64, float64 and bool arrays of such lists, and
    the scans of :func:`_list_to_array` and :func:`_has_typed_leaf` find nothing in them.
    Ints outside int64 raise OverflowError here and are left to the general route (uint64,
    or its error).
    """
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    spec = _FLAT_KINDS.get(kinds.pop())
    if spec is None:
        return None
    try:
        arr = np.array(data, dtype=spec[0])
    except OverflowError:
        return None
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def _list_own_dtype(
    data: list[Any] | tuple[Any, ...] | bool | int | float | complex, arr: np.ndarray, source: torch.Tensor
) -> torch.dtype:
    """The dtype a (nested) list or Python number has on its own, as ``torch.tensor(data)`` infers it.

    ``arr`` is numpy's array of ``data`` (:func:`_list_to_array`) and ``source`` its tensor:
    bool -> torch.bool, int -> torch.int64, float -> the default dtype, complex -> the
    default complex dtype; with numpy scalars, arrays or tensors among the elements,
    ``torch.tensor``'s own answer (numpy's dtype where ``torch.tensor`` refuses the list).
    """
    if _has_typed_leaf(data):
        # Numpy scalars, ndarrays or tensors among the elements: torch.tensor's
        # inference keeps their dtypes and mixes them with Python numbers by rules of
        # its own ([np.float32(1.5), 2.5] is float32, numpy says float64; a list of
        # int32 arrays is int32), so ask it (only the dtype is kept). Where
        # torch.tensor refuses the list (multi-element tensors inside it, 0-d arrays
        # mixed with numbers), numpy's dtype for it is used.
        try:
            with warnings.catch_warnings():  # "Creating a tensor from a list of numpy.ndarrays is extremely slow"
                warnings.simplefilter("ignore", UserWarning)
                return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return source.dtype
    kind = arr.dtype.kind
    if kind == "b":
        return torch.bool
    if kind in "iu":
        return torch.int64
    if kind == "f":
        return torch.get_default_dtype()
    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    """Turn ``data`` into a host tensor plus the dtype the data has on its own.

    ``infer_dtype=False`` (the caller already knows the target dtype) skips the scan of
    list leaves for numpy scalars / tensors, which only matters for the inferred dtype;
    the second value is then ``source.dtype``.

    Args:
        data: a (nested) ``list``/``tuple`` of bool/int/float/complex, a Python or numpy
            scalar, a ``numpy.ndarray`` of a bool/integer/floating/complex dtype in any
            layout (negative strides, non-native byte order and read-only included), or
            a CPU ``torch.Tensor`` with the strided layout (any strides, pinned or not).

    Returns:
        ``(source, own_dtype)``: ``source`` is a CPU tensor that may alias ``data`` and
        must only be read; ``own_dtype`` follows ``torch.tensor``'s inference for lists
        (bool -> torch.bool, int -> torch.int64, float -> the default dtype, complex ->
        the default complex dtype; numpy scalars, ndarrays and tensors inside a list keep
        their dtype as ``torch.tensor(data)`` does: ``[np.array([1.5], np.float64)]`` is
        float64, a list of int32 arrays int32; where ``torch.tensor`` refuses such a
        list, numpy's dtype for it) and the array's or tensor's own dtype otherwise.

    Raises:
        TypeError: ``data`` is of an unsupported kind (None, str, dict, generator, object
            or string arrays, sparse tensors, unsupported dtypes).
        ValueError: ragged nesting; a tensor that is not in host memory; integers out of
            the int64/uint64 range in a list.
    """
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        # detach only what autograd tracks (~0.3 us a call otherwise): the source is only read
        return (data.detach() if data.requires_grad else data), data.dtype
    if isinstance(data, np.ndarray):
        source = _numpy_to_tensor(data)
        return source, source.dtype
    if isinstance(data, np.generic):
        source = _numpy_to_tensor(np.asarray(data))
        return source, source.dtype
    if isinstance(data, (list, tuple)) or (
        isinstance(data, (numbers.Number, np.bool_)) and not isinstance(data, (np.generic,))
    ):
        if not isinstance(data, (list, tuple, bool, int, float, complex)):
            raise TypeError(
                f"data of type {type(data).__qualname__} is not supported: pass an int, float, bool or complex"
            )
        flat = _flat_list(data)
        if flat is not None:
            return flat if infer_dtype else (flat[0], flat[0].dtype)
        arr = _list_to_array(data)
        source = _numpy_to_tensor(arr)
        if not infer_dtype:
            return source, source.dtype
        return source, _list_own_dtype(data, arr, source)
    raise TypeError(
        f"data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got "
        f"{type(data).__module__}.{type(data).__qualname__}"
    )


def _first_index(mask: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in torch.nonzero(mask.reshape(mask.shape))[0].tolist())


def _at(idx: tuple[int, ...]) -> str:
    return f"data[{', '.join(map(str, idx))}]" if idx else "data"


_NUMPY_FLOATS = frozenset({torch.float16, torch.float32, torch.float64})


def exact_integer_list(data: Any, source: torch.Tensor) -> torch.Tensor | None:
    """An int64 tensor of a list that mixes floats with ints a float64 cannot hold (past 2**53), for an integer dtype.

    numpy builds such a list as float64 (``[2**53 + 1, 0.5]``: 2**53 + 1 becomes 2**53), so
    its ints would reach an integer dtype rounded; ``torch.tensor(data, dtype=torch.int64)``
    keeps them. Here each int is kept exactly and each float truncated toward zero (what the
    conversion from float64 does). ``source``: numpy's float64 tensor of ``data``, of the
    same shape. Returns None where nothing is lost (no value at or past 2**53: the common case,
    one vectorised test) or where a float is not finite or past int64 (the float64 source's
    own range check refuses it). Found by held-out round r57's author.
    """
    if not source.numel() or not bool((source.abs() >= 2.0**53).any()):
        return None
    leaves = np.asarray(data, dtype=object).ravel()
    exact: list[int] = []
    # an int the float64 source rounded: only then is the exact tensor needed (elsewhere its messages would differ)
    inexact = False
    for v in leaves:
        if isinstance(v, numbers.Integral):
            exact.append(int(v))
            inexact = inexact or abs(exact[-1]) > 2**53
            continue
        f = float(v)
        if not np.isfinite(f) or abs(f) >= 2.0**63:
            return None
        exact.append(int(f))  # toward zero
    return torch.tensor(exact, dtype=torch.int64).reshape(source.shape) if inexact else None


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning.

    Rules (torch's own ``Tensor.to`` wraps integers and turns NaN into garbage; the
    reference refuses both instead):

    - complex -> non-complex: TypeError (the imaginary part would be dropped).
    - float -> integer: the conversion of C, numpy (``astype``) and ``Tensor.to``: the value is
      truncated toward zero (``[1.5, -2.7] -> [1, -2]``), and refused with ValueError only
      when it is NaN or infinite, or when the truncated value lies outside the integer
      dtype's ``[min, max]``. So ``127.5`` into int8 is 127 and ``-0.5`` into uint8 is 0
      (``torch.tensor([127.5], dtype=torch.int8)`` refuses them; vLLM's list path builds with
      it, docs/reference.md), while ``128.0`` into int8 and ``-1.5`` into uint8 are refused.
    - integer -> narrower integer: every value must lie in the target's range, else
      ValueError (e.g. ``[2**40]`` into ``int32``).
    - anything -> bool, and conversions into floating dtypes follow torch (nonzero is
      True; float narrowing rounds, overflow gives inf).

    Raises:
        TypeError, ValueError: as above; the message gives the first offending index.
    """
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.is_complex():  # before the empty shortcut: an empty complex input is refused like any other
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    if source.numel() == 0 or source._is_zerotensor():  # no values, or a ZeroTensor's zeros (no storage to read)
        return
    info = torch.iinfo(dtype)
    # The checks run in numpy where it can hold the source: one thread, where each torch op
    # on more than 32,768 elements is an OpenMP region that waits about 8 ms for a time slice
    # when another thread is busy on the H200 host (h2d.SERIAL_COPY_MAX_BYTES).
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():
            wide_np = source.numpy().astype(
                np.float64
            )  # float64 first: numpy 2 compares a float32 array with a Python float in float32
        else:  # bfloat16, float8, neg views: torch
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)  # no copy: read only for a message
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(
                torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))
            )  # 0-d: numpy gives a scalar
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")
        # The value truncated toward zero must lie in [min, max] (C's, numpy's and Tensor.to's
        # conversion: -0.5 into uint8 is 0). float(max) rounds up for int64, so max + 1, a
        # power of two and exact in float64, is checked too.
        whole = np.trunc(wide_np)
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        # numpy compares any integer dtype with Python ints exactly (torch has no
        # comparison kernels for uint16/32/64 on the CPU).
        values = (source.resolve_neg() if source.is_neg() else source).numpy()  # numpy cannot read the negative bit
        bad_np = (values < info.min) | (values > info.max)
        wide = None
    if np.any(bad_np):
        bad = torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))
        if wide is None:
            wide = (
                source.to(torch.int64)
                if source.dtype != getattr(torch, "uint64", None)
                else torch.from_numpy(values.astype(np.float64))
            )
        idx = _first_index(bad)
        raise ValueError(f"{_at(idx)} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")
