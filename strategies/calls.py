"""Strategies for the other arguments: devices, ``out`` buffers, keyword sets, buffer ops."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
from hypothesis import strategies as st

from . import _validate as _v
from ._dtypes import FLOAT8_DTYPES, NUMPY_OF, UNSIGNED_WIDE_DTYPES, USER_DTYPES
from .describe import describe_call
from .errors import BAD_INPUT_KINDS
from .host import (
    HOST_KINDS,
    host_data,
    shapes,
    torch_dtypes,
)

__all__ = [
    "OUT_KINDS",
    "ROUTES",
    "VALUE_KINDS",
    "value_bad_inputs_table",
    "value_case",
    "BadInput",
    "H2DCall",
    "bad_inputs",
    "buffer_specs",
    "devices",
    "h2d_calls",
    "out_buffers",
    "out_in_layout",
    "row_counts",
    "wrong_shapes",
]

OUT_KINDS = ("contiguous", "noncontiguous", "offset", "transposed")
#: Sentinel written into every fresh ``out`` buffer, so an unwritten element shows.
POISON = 77


@_v.eager(cpu=_v.boolean(), cuda=_v.boolean())
def devices(*, cpu: bool = True, cuda: bool = True) -> st.SearchStrategy[torch.device]:
    """Devices available on this machine: ``cpu`` and every ``cuda:i`` (always with an index)."""
    choices = [torch.device("cpu")] if cpu else []
    if cuda and torch.cuda.is_available():
        choices += [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    if not choices:
        raise ValueError("no device to draw: cpu=False and CUDA is not available")
    return st.sampled_from(choices)


def _poisoned(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    t = torch.empty(shape, dtype=torch.uint8 if dtype in FLOAT8_DTYPES else dtype, device=device)
    t.fill_(True if dtype is torch.bool else POISON)
    return t.view(dtype) if dtype in FLOAT8_DTYPES else t


@_v.eager(
    shape=_v.shape(optional=False, strategy=False),
    dtype=_v.dtype(optional=False),
    device=_v.device(),
    kind=_v.one_of(OUT_KINDS),
)
@st.composite
def out_buffers(
    draw: st.DrawFn,
    shape: tuple[int, ...],
    dtype: torch.dtype,
    device: torch.device,
    *,
    kind: str | None = None,
) -> torch.Tensor:
    """``out`` tensors of exactly ``shape`` and ``dtype`` on ``device``, poisoned with 77.

    - kind: "contiguous", "noncontiguous" (every other element of a larger buffer),
      "offset" (non-zero storage offset), "transposed"; None draws one. The storage
      around a view is poisoned too, so a contract can check that only ``out``'s own
      elements were written.
    """
    kind = draw(st.sampled_from(OUT_KINDS), label="out kind") if kind is None else kind
    return out_in_layout(shape, dtype, device, kind)


def out_in_layout(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, kind: str) -> torch.Tensor:
    """One ``out`` tensor of :func:`out_buffers`' ``kind`` (one of ``OUT_KINDS``), poisoned with 77: for deterministic tables.

    Kinds that do not apply to ``shape`` (transposed 1-D) fall back to contiguous.
    Raises ValueError for an unknown ``kind``.
    """
    if kind not in OUT_KINDS:
        raise ValueError(f"kind must be one of {OUT_KINDS}, got {kind!r}")
    shape = tuple(shape)
    if kind == "noncontiguous" and len(shape) >= 1:
        return _poisoned(shape[:-1] + (2 * shape[-1] + 1,), dtype, device)[..., 1::2]
    if kind == "offset":
        n = int(np.prod(shape, dtype=np.int64))
        return _poisoned((n + 2,), dtype, device)[1:-1].view(shape)
    if kind == "transposed" and len(shape) >= 2:
        perm = list(range(len(shape)))[::-1]
        return _poisoned(tuple(shape[p] for p in perm), dtype, device).permute(perm)
    return _poisoned(shape, dtype, device)


@_v.eager(shape=_v.shape(optional=False, strategy=False), broadcastable=_v.boolean(optional=True))
@st.composite
def wrong_shapes(draw: st.DrawFn, shape: tuple[int, ...], *, broadcastable: bool | None = None) -> tuple[int, ...]:
    """Shapes different from ``shape``; with ``broadcastable=True`` ones ``shape`` broadcasts to.

    Broadcastable wrong shapes (``(4,)`` for data of shape ``(1,)`` or ``()``, ``(2, 3)``
    for ``(3,)``) are what ``Tensor.copy_`` silently accepts.
    """
    shape = tuple(shape)
    if broadcastable is None:
        broadcastable = draw(st.booleans(), label="broadcastable")
    if broadcastable:
        lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2), label="leading dims")
        grown = tuple(s if s != 1 else draw(st.integers(1, 4)) for s in shape)
        candidate = tuple(lead) + grown
        if candidate == shape:
            candidate = (2,) + shape
        return candidate
    candidate = draw(shapes(max_dims=3).filter(lambda s: s != shape), label="wrong shape")
    return candidate


@dataclass
class H2DCall:
    """One valid call: ``data`` plus the keyword arguments actually passed.

    ``kwargs`` omits the keys that are "not passed", so defaults are exercised too.
    """

    data: Any
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return describe_call(self.data, self.kwargs)


def _target_dtypes_for(data_dtype: torch.dtype | None) -> list[torch.dtype]:
    return list(USER_DTYPES + FLOAT8_DTYPES)


@_v.eager(
    device=_v.device(),
    kinds=_v.some_of(HOST_KINDS),
    out=_v.boolean(optional=True),
    dtype=_v.boolean(optional=True),
    pass_device=_v.boolean(optional=True),
    pinned=_v.boolean(optional=True),
    shape=_v.shape(),
    out_kind=_v.one_of(OUT_KINDS),
)
@st.composite
def h2d_calls(
    draw: st.DrawFn,
    device: torch.device,
    *,
    kinds: tuple[str, ...] = ("list", "ndarray", "tensor", "list-of-arrays"),
    out: bool | None = None,
    dtype: bool | None = None,
    pass_device: bool | None = None,
    pinned: bool | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    out_kind: str | None = None,
    inputs: frozenset[str] | None = None,
    requires: frozenset[str] = frozenset(),
) -> H2DCall:
    """Valid ``async_tensor_h2d`` calls targeting ``device``.

    - out / dtype / pass_device: force ``out=``, ``dtype=`` and ``device=`` to be
      passed (True) or omitted (False); None draws. At least one of device/out is passed.
    - kinds, pinned, shape: forwarded to :func:`host_data`.
    - out_kind: forwarded to :func:`out_buffers`.
    - inputs: a target's declared input kinds (:attr:`Target.inputs`): draw only inside them.
    - requires: the arguments a target requires (:attr:`Target.requires`): passed unless
      forced off (``dtype=False``), which then draws a call outside the target's domain.

    Values are always representable in the resolved dtype, so every call must succeed.
    """
    if "device" in requires and pass_device is None:
        pass_device = True
    if "out" in requires and out is None:
        out = True
    use_out = draw(st.booleans(), label="pass out") if out is None else out
    use_dtype = ("dtype" in requires or draw(st.booleans(), label="pass dtype")) if dtype is None else dtype
    target = draw(torch_dtypes(unsigned_wide=True), label="target dtype") if (use_dtype or use_out) else None
    data = draw(host_data(kinds=kinds, target_dtype=target, pinned=pinned, shape=shape, inputs=inputs), label="data")
    kwargs: dict[str, Any] = {}
    if use_dtype:
        kwargs["dtype"] = target
    if use_out:
        data_shape = tuple(np.shape(data)) if not isinstance(data, torch.Tensor) else tuple(data.shape)
        out_dtype = cast(torch.dtype, target)  # drawn above whenever use_out
        kwargs["out"] = draw(out_buffers(data_shape, out_dtype, device, kind=out_kind), label="out")
    if pass_device is None:
        pass_device = draw(st.booleans(), label="pass device") if use_out else True
    if pass_device or not use_out:
        kwargs["device"] = draw(st.sampled_from(_device_spellings(device)), label="device")
    return H2DCall(data, kwargs)


def _device_spellings(device: torch.device) -> list[Any]:
    """Equivalent ways users spell ``device`` (a bare "cuda" only for the current device)."""
    if device.type == "cpu":
        # "cpu:0" and torch.device("cpu", 0) are the host too (held-out testing found a target refusing them)
        return [torch.device("cpu"), "cpu", "cpu:0", torch.device("cpu", 0)]
    # an index as a numpy integer too (e.g. taken from an array of device ids): the GPU
    # mutation run left its conversion unchecked
    spellings: list[Any] = [device, str(device), device.index, np.int64(device.index)]
    if device.index == torch.cuda.current_device():
        spellings.append("cuda")
    return spellings


@_v.eager(max_rows=_v.integer(), numpy_only=_v.boolean())
@st.composite
def buffer_specs(draw: st.DrawFn, *, max_rows: int = 8, numpy_only: bool = False) -> dict[str, Any]:
    """Keyword sets for ``CpuGpuBuffer(*size, dtype=..., pin_memory=..., with_numpy=...)``.

    Returns a dict with ``size`` (a tuple, rows first, 0 rows allowed), ``dtype``,
    ``pin_memory`` (True or False, also where pinning is unavailable: the documented
    fallback is pageable memory) and ``with_numpy`` (False for
    dtypes numpy lacks, or when drawn). ``device`` is left to the caller.
    """
    rows = draw(st.integers(0, max_rows), label="rows")
    rest = draw(st.lists(st.integers(1, 3), max_size=2), label="row shape")
    dtype = draw(
        torch_dtypes(
            exclude=() if not numpy_only else tuple(d for d in USER_DTYPES + FLOAT8_DTYPES if d not in NUMPY_OF)
        ),
        label="dtype",
    )
    with_numpy = dtype in NUMPY_OF and draw(st.booleans(), label="with_numpy")
    # Pinning asked for where it is unavailable too: the buffer must fall back to pageable memory.
    pin = draw(st.booleans(), label="pin_memory")
    return {"size": (rows, *rest), "dtype": dtype, "pin_memory": pin, "with_numpy": with_numpy}


@_v.eager(capacity=_v.integer(), valid=_v.boolean(optional=True))
def row_counts(capacity: int, *, valid: bool | None = None) -> st.SearchStrategy[int | np.integer[Any] | None]:
    """``n`` values for ``copy_to_gpu(n)`` / ``copy_to_cpu(n)``.

    - valid=True: None or ``0..capacity``, as a Python int or a numpy integer (engines
      often compute ``num_reqs`` with numpy); valid=False: negatives and ``capacity+1..``
      (the "num_reqs + 1" overrun); None: both.
    """
    ints = st.integers(0, capacity) | st.sampled_from(
        sorted({0, capacity})
    )  # the ends explicitly: capacity is where off-by-ones bite
    good = st.none() | ints | ints.map(np.int64) | ints.map(np.int32)
    bad = st.integers(-capacity - 3, -1) | st.integers(capacity + 1, capacity + 8)
    if valid is True:
        return good
    if valid is False:
        return bad
    return good | bad


@dataclass
class BadInput:
    """A call that must fail: ``kind`` (a catalogue entry), its ``kwargs``, the exception type."""

    kind: str
    data: Any
    kwargs: dict[str, Any]
    raises: type[BaseException]

    def __repr__(self) -> str:
        return f"BadInput({self.kind!r}, expects {self.raises.__name__}): {describe_call(self.data, self.kwargs)}"


#: The routes a target dtype reaches a call by.
ROUTES = ("out", "dtype")

_INT_TARGETS = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64) + UNSIGNED_WIDE_DTYPES
_FLOAT_CARRIERS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

#: Value-range bad-input kinds -> (the data kinds that can carry them, what they are).
#: Each is drawn over every carrier (list, ndarray, tensor) and route (``out=``, ``dtype=``).
VALUE_KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "nan-to-int": (("list", "ndarray", "tensor", "scalar"), "a NaN into an integer dtype"),
    "inf-to-int": (("list", "ndarray", "tensor", "scalar"), "+-inf into an integer dtype"),
    "out-of-range-int": (("list", "ndarray", "tensor", "scalar"), "2**40 into a narrower integer dtype"),
    "out-of-range-uint8": (("list", "ndarray", "tensor", "scalar"), "-1 (or -1.5, truncated to -1) into uint8"),
    "int-beyond-int64": (("list", "scalar"), "2**64 into int64 (only a Python int can hold it)"),
    "uint32-out-of-range": (("list", "ndarray", "tensor", "scalar"), "2**31 (a uint32) into int32"),
    "complex-to-real": (("list", "ndarray", "tensor", "scalar"), "1+2j into a real dtype"),
    "negative-into-unsigned": (("list", "ndarray", "tensor", "scalar"), "-1 into uint16/uint32/uint64"),
    "beyond-unsigned-range": (("list", "ndarray", "tensor", "scalar"), "max+1 into uint16/uint32"),
    # found by held-out testing: float(iinfo(int64).max) rounds to 2**63, so a check against
    # it lets exactly 2.0**63 through; every integer dtype's first float past either end
    "float-just-past-int-range": (
        ("list", "ndarray", "tensor", "scalar"),
        "the first float64 past max (2.0**63 for int64) or below min, into each integer dtype",
    ),
    # mutation run of the contract suite: a range check that widens uint64 through
    # int64 wraps 2**63 to -2**63, which int64 holds; no drawn data reached it
    "uint64-beyond-int64": (
        ("list", "ndarray", "tensor", "scalar"),
        "2**63 and 2**64 - 1 (uint64 values) into int64, int32, int8",
    ),
}


def value_case(kind: str, carrier: str, n: int, pick: int = 0) -> tuple[Any, torch.dtype]:
    """``(data, target dtype)`` for a value-range bad-input ``kind`` carried as ``carrier`` ("list", "ndarray", "tensor", "scalar").

    ``pick`` chooses among the kind's variants (target dtype, source dtype) deterministically.
    """

    def carry(values: list[Any], np_dtype: Any, t_dtype: torch.dtype | None) -> Any:
        if carrier == "list":
            return values
        if carrier == "scalar":
            # a 0-d source, the bad value alone as a Python number (the contract suite's mutation
            # run: 0-d sources take a path of their own in a range check)
            return next((v for v in values if not (isinstance(v, (int, float)) and v in (0, 1))), values[0])
        if carrier == "ndarray":
            return np.array(values, dtype=np_dtype)
        return torch.tensor(values, dtype=t_dtype)

    if kind in ("nan-to-int", "inf-to-int"):
        bad = float("nan") if kind == "nan-to-int" else (float("inf") if pick % 2 else float("-inf"))
        src = _FLOAT_CARRIERS[pick % len(_FLOAT_CARRIERS)]
        np_src = np.float16 if src is torch.float16 else np.float32 if src is torch.float32 else np.float64
        return carry([bad] + [1.0] * (n - 1), np_src, src), _INT_TARGETS[pick % len(_INT_TARGETS)]
    if kind == "out-of-range-int":
        narrow = [d for d in _INT_TARGETS if d is not torch.int64 and d is not getattr(torch, "uint64", None)]
        return carry([1] * (n - 1) + [2**40], np.int64, torch.int64), narrow[pick % len(narrow)]
    if kind == "out-of-range-uint8":
        if pick % 2:
            return carry([-1.5] + [1.0] * (n - 1), np.float64, torch.float64), torch.uint8
        return carry([-1] + [1] * (n - 1), np.int16, torch.int16), torch.uint8
    if kind == "int-beyond-int64":
        return [2**64] * n, torch.int64
    if kind == "uint32-out-of-range":
        return carry([2**31] * n, np.uint32, getattr(torch, "uint32", torch.int64)), torch.int32
    if kind == "complex-to-real":
        reals = (torch.float32, torch.float64, torch.int32, torch.int64)
        return carry([1 + 2j] * n, np.complex128, torch.complex64), reals[pick % len(reals)]
    if kind == "negative-into-unsigned":
        targets: Sequence[torch.dtype] = UNSIGNED_WIDE_DTYPES or (torch.uint8,)
        if pick % 2:
            return carry([-1.0] * n, np.float64, torch.float32), targets[pick % len(targets)]
        return carry([-1] * n, np.int64, torch.int64), targets[pick % len(targets)]
    if kind == "beyond-unsigned-range":
        targets = [d for d in UNSIGNED_WIDE_DTYPES if d is not getattr(torch, "uint64", None)] or [torch.uint8]
        dt = targets[pick % len(targets)]
        return carry([1] * (n - 1) + [int(torch.iinfo(dt).max) + 1], np.int64, torch.int64), dt
    if kind == "uint64-beyond-int64":
        big = 2**63 if pick % 2 == 0 else 2**64 - 1
        u64 = getattr(torch, "uint64", None)
        values = [1] * (n - 1) + [big]
        if carrier == "tensor" and u64 is None:  # torch without uint64 tensors: the ndarray carries it
            return np.array(values, dtype=np.uint64), (torch.int64, torch.int32, torch.int8)[pick % 3]
        return carry(values, np.uint64, u64), (torch.int64, torch.int32, torch.int8)[pick % 3]
    if kind == "float-just-past-int-range":
        dt = _INT_TARGETS[(pick // 2) % len(_INT_TARGETS)]
        info = torch.iinfo(dt)
        if pick % 2 == 0 or info.min == 0:  # above max: 2**bits (exact in float64), the first float64 >= max + 1
            bad = float(2 ** (info.bits - (0 if info.min == 0 else 1)))
        else:  # below min: min - 1 where float64 holds it, else the next float64 down (-2**63 itself is valid for int64)
            bad = float(info.min - 1)
            if bad >= info.min:
                bad = float(np.nextafter(np.float64(info.min), -np.inf))
        return carry([1.0] * (n - 1) + [bad], np.float64, torch.float64), dt
    raise ValueError(f"{kind!r} is not a value-range bad-input kind; pick one of {sorted(VALUE_KINDS)}")


def value_bad_inputs_table(device: torch.device) -> list[BadInput]:
    """Every value-range kind x every carrier x every route x every variant: a deterministic table (no luck needed)."""
    rows: list[BadInput] = []
    for kind, (carriers, _) in VALUE_KINDS.items():
        variants = (
            8
            if kind in ("nan-to-int", "inf-to-int")
            else 2 * len(_INT_TARGETS)
            if kind == "float-just-past-int-range"
            else 6
            if kind == "uint64-beyond-int64"
            else 4
        )
        for carrier in carriers:
            for route in ROUTES:
                for pick in range(variants):
                    data, dt = value_case(kind, carrier, 3, pick)
                    if route == "out":
                        base = torch.full((5,), 77, dtype=dt, device=device)
                        kwargs: dict[str, Any] = {"out": base[2] if carrier == "scalar" else base[1:4]}
                    else:
                        kwargs = {"dtype": dt, "device": device}
                    rows.append(BadInput(kind, data, kwargs, BAD_INPUT_KINDS[kind]))
    return rows


def _bad_kinds(where: str, value: Any) -> Any:
    return _v.some_of(tuple(sorted(BAD_INPUT_KINDS)), optional=True)(where, value)


def _gen() -> Iterator[int]:
    yield from range(3)


@_v.eager(device=_v.device(), kinds=_bad_kinds)
@st.composite
def bad_inputs(draw: st.DrawFn, device: torch.device, *, kinds: tuple[str, ...] | None = None) -> BadInput:
    """Calls that must raise a documented exception, with an ``out`` to check stays untouched.

    Every kind of the catalogue's bad-input row, each with the exception type the
    reference documents (see ``strategies.errors.BAD_INPUT_KINDS``).
    """
    names = sorted(BAD_INPUT_KINDS) if kinds is None else list(kinds)
    kind = draw(st.sampled_from(names), label="bad kind")
    raises = BAD_INPUT_KINDS[kind]
    out_dtype = draw(st.sampled_from([torch.int32, torch.int64, torch.float32]), label="out dtype")
    n = draw(st.integers(1, 4), label="length")

    def out_for(shape: tuple[int, ...], dt: torch.dtype = out_dtype) -> torch.Tensor:
        return draw(out_buffers(shape, dt, device))

    good = list(range(n))
    if kind == "none":
        return BadInput(kind, None, {"out": out_for((n,))}, raises)
    if kind == "string":
        return BadInput(kind, "123", {"out": out_for((3,))}, raises)
    if kind == "bytes":
        return BadInput(kind, b"123", {"out": out_for((3,))}, raises)
    if kind == "dict":
        return BadInput(kind, {0: 1}, {"out": out_for((1,))}, raises)
    if kind == "set":
        return BadInput(kind, {1, 2}, {"out": out_for((2,))}, raises)
    if kind == "generator":
        return BadInput(kind, _gen(), {"out": out_for((3,))}, raises)
    if kind == "list-of-strings":
        return BadInput(kind, ["1"] * n, {"out": out_for((n,))}, raises)
    if kind == "list-with-none":
        return BadInput(kind, good[:-1] + [None], {"out": out_for((n,))}, raises)
    if kind == "ragged-list":
        return BadInput(kind, [good, good[:-1] + [0, 0]], {"out": out_for((2, n))}, raises)
    if kind == "nested-scalar-mix":
        return BadInput(kind, [good, 1], {"out": out_for((2, n))}, raises)
    if kind == "object-array":
        return BadInput(kind, np.array([object()] * n), {"out": out_for((n,))}, raises)
    if kind == "string-array":
        return BadInput(kind, np.array(["a"] * n), {"out": out_for((n,))}, raises)
    if kind == "datetime-array":
        return BadInput(kind, np.array(["2026-11-30"] * n, dtype="datetime64[D]"), {"out": out_for((n,))}, raises)
    if kind in VALUE_KINDS:
        carriers = VALUE_KINDS[kind][0]
        carrier = draw(st.sampled_from(carriers), label="data kind")
        route = draw(st.sampled_from(ROUTES), label="route")
        pick = draw(st.integers(0, 7), label="variant")
        data, dt = value_case(kind, carrier, n, pick)
        kwargs: dict[str, Any] = (
            {"out": out_for(() if carrier == "scalar" else (n,), dt)}
            if route == "out"
            else {"dtype": dt, "device": device}
        )
        return BadInput(kind, data, kwargs, raises)
    if kind == "wrong-shape-out":
        return BadInput(kind, good, {"out": out_for((n + 1,))}, raises)
    if kind == "broadcastable-out":
        return BadInput(kind, [1], {"out": out_for((4,))}, raises)
    if kind == "scalar-into-vector-out":
        return BadInput(kind, 5, {"out": out_for((n,))}, raises)
    if kind == "dtype-mismatch-out":
        return BadInput(kind, good, {"dtype": torch.float64, "out": out_for((n,), torch.int32)}, raises)
    if kind == "no-target":
        return BadInput(kind, good, {}, raises)
    if kind == "dtype-not-a-dtype":
        return BadInput(kind, good, {"dtype": "int32", "out": out_for((n,))}, raises)
    if kind == "numpy-dtype":
        return BadInput(kind, good, {"dtype": np.int32, "out": out_for((n,))}, raises)
    if kind == "python-type-dtype":
        python_type = draw(st.sampled_from([float, int, bool, complex]), label="python type")
        return BadInput(kind, good, {"dtype": python_type, "device": device}, raises)
    if kind == "out-not-a-tensor":
        return BadInput(kind, good, {"out": np.zeros(n), "device": device}, raises)
    if kind == "out-requires-grad":
        out = torch.zeros(n, dtype=torch.float32, device=device, requires_grad=True)
        return BadInput(kind, good, {"out": out}, raises)
    if kind == "out-overlapping":
        return BadInput(kind, good + [0], {"out": out_for((1,)).expand(n + 1)}, raises)
    if kind == "bad-device-string":
        return BadInput(kind, good, {"device": "gpu:0"}, raises)
    if kind == "meta-device":
        return BadInput(kind, good, {"device": "meta"}, raises)
    if kind == "device-out-disagree":
        other = torch.device("cpu") if device.type == "cuda" else ("cuda:0" if torch.cuda.is_available() else "meta")
        return BadInput(kind, good, {"device": other, "out": out_for((n,))}, raises)
    if kind == "missing-cuda-index":
        # the first index past the visible devices (an off-by-one bound: the GPU mutation run
        # left `index <= count` alive) or one far past them
        index = torch.cuda.device_count() + draw(st.sampled_from([0, 7]), label="past the last index by")
        # every spelling of the index: a host without CUDA refuses device=0 too (an `if not device` takes it for none)
        spell = draw(st.sampled_from(["str", "int", "numpy", "device"]), label="spelled as")
        # with and without out: with an out on another device the disagreement is refused first,
        # so the index bound itself is reached only without one (found by the GPU mutation run)
        spelled: Any = {
            "str": f"cuda:{index}",
            "int": index,
            "numpy": np.int64(index),
            "device": torch.device("cuda", index),
        }[spell]
        kwargs = {"device": spelled}
        if draw(st.booleans(), label="with out"):
            kwargs["out"] = out_for((n,))
        return BadInput(kind, good, kwargs, raises)
    if kind == "negative-device-index":
        return BadInput(
            kind,
            good,
            {"device": draw(st.sampled_from([-1, np.int64(-1)]), label="index"), "out": out_for((n,))},
            raises,
        )
    if kind == "cpu-device-index":
        return BadInput(
            kind, good, {"device": draw(st.sampled_from(["cpu:1", torch.device("cpu", 1)]), label="device")}, raises
        )
    if kind == "device-tensor-data":
        return BadInput(kind, torch.zeros(n, device="meta"), {"out": out_for((n,))}, raises)
    if kind == "sparse-data":
        return BadInput(kind, torch.zeros(n).to_sparse(), {"out": out_for((n,), torch.float32)}, raises)
    if kind == "device-bool":
        # both bools, and numpy's: False == 0 and True == 1 as dict keys, so a device cache keyed by value alone
        # hands a bool the device an int spelled
        flag = draw(st.sampled_from([False, True, np.bool_(False), np.bool_(True)]), label="bool")
        return BadInput(kind, good, {"device": flag}, raises)
    if kind == "out-as-strided-overlap":
        side = n + 1  # a (side, side) view of side*side elements with strides (1, 1): rows overlap
        data = [[float(i)] * side for i in range(side)]
        return BadInput(
            kind, data, {"out": out_for((side * side,), torch.float32).as_strided((side, side), (1, 1))}, raises
        )
    if kind == "out-as-strided-overlap-3d":
        # shape (2, 2, 2), strides (1, 2, 3) over 7 elements: element (1, 1, 0) and (0, 0, 1) share offset 3;
        # each stride alone steps past the one below it, only their summed reach shows the overlap
        data = [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
        return BadInput(kind, data, {"out": out_for((7,), torch.float32).as_strided((2, 2, 2), (1, 2, 3))}, raises)
    if kind == "out-inference-tensor":
        # Made under torch.inference_mode() (as in a serving loop), written outside it:
        # torch's copy_ writes first and raises RuntimeError after.
        with torch.inference_mode():
            out = out_for((n,)).clone()
        return BadInput(kind, good, {"out": out}, raises)
    if kind == "out-unsupported-dtype":
        # complex32: dtype=torch.complex32 is refused, so an out of that dtype must be too.
        with warnings.catch_warnings():  # "ComplexHalf support is experimental"
            warnings.simplefilter("ignore", UserWarning)
            out = torch.zeros(n, dtype=torch.complex32, device=device)
        return BadInput(kind, good, {"out": out}, raises)
    if kind == "out-aliases-data":
        m = max(n, 2)  # base[:1] and base[1:] would be disjoint bytes, which is valid
        if draw(st.booleans(), label="shared only at the far end"):
            # one element shared, the last of data and the first of out: a byte-span bound
            # that falls short of the end misses it (the contract suite's mutation run)
            base = torch.arange(2 * m - 1, dtype=torch.float32)
            return BadInput(kind, base[:m], {"out": base[m - 1 :]}, raises)
        base = torch.arange(m + 1, dtype=torch.float32)  # host memory on every device: data and out overlap
        return BadInput(kind, base[:m], {"out": base[1:]}, raises)
    if kind == "out-aliases-data-array":
        m = max(n, 2)
        # data: an ndarray view of the same host memory as out; one-byte dtypes (no byte order)
        # and a zero-stride broadcast view take paths of their own in an ndarray's conversion
        # (the contract suite's mutation run)
        variant = draw(st.sampled_from(["float32", "uint8", "bool", "broadcast"]), label="variant")
        if variant == "broadcast":
            base = torch.arange(m + 1, dtype=torch.int64)
            return BadInput(kind, np.broadcast_to(base.numpy()[:1], (m,)), {"out": base[:m]}, raises)
        base = torch.arange(m + 1, dtype=torch.int64).to(
            {"float32": torch.float32, "uint8": torch.uint8, "bool": torch.bool}[variant]
        )
        return BadInput(kind, base.numpy()[:m], {"out": base[1:]}, raises)
    if kind == "nested-tensor-data":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
        return BadInput(kind, nested, {"device": device}, raises)
    if kind == "decimal-element":
        import decimal

        return BadInput(kind, [decimal.Decimal("1.5")] * n, {"out": out_for((n,), torch.float32)}, raises)
    if kind == "uint32-out-of-range":
        return BadInput(kind, np.full(n, 2**31, dtype=np.uint32), {"out": out_for((n,), torch.int32)}, raises)
    # the contract suite's mutation run: refusals no kind reached
    if kind == "unsupported-dtype":
        return BadInput(
            kind,
            good,
            {"dtype": draw(st.sampled_from([torch.complex32, torch.quint8]), label="dtype"), "device": device},
            raises,
        )
    if kind == "sparse-out":
        return BadInput(kind, [1.0] * n, {"out": torch.zeros(n).to_sparse()}, raises)
    if kind == "nested-out":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nested = torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)])
        return BadInput(kind, [1.0] * n, {"out": nested}, raises)
    if kind == "out-on-meta":
        kwargs = {"out": torch.empty(n, device="meta")}
        if draw(st.booleans(), label="device given too"):
            kwargs["device"] = device
        return BadInput(kind, [1.0] * n, kwargs, raises)
    if kind == "complex32-tensor-data":
        with warnings.catch_warnings():  # "ComplexHalf support is experimental"
            warnings.simplefilter("ignore", UserWarning)
            data = torch.zeros(n, dtype=torch.complex32)
        return BadInput(kind, data, {"device": device}, raises)
    if kind == "fraction-scalar":
        import fractions

        return BadInput(kind, fractions.Fraction(1, 2), {"device": device}, raises)
    if kind == "longdouble-array":
        # numpy's extended precision (float128 on x86-64), a dtype torch lacks; where longdouble
        # is float64 itself (some platforms) an object array of floats stands in: refused too
        arr = np.ones(n, dtype=np.longdouble) if np.dtype(np.longdouble).itemsize > 8 else np.ones(n).astype(object)
        return BadInput(kind, arr, {"device": device}, raises)
    if kind == "mixed-sign-huge-ints":
        return BadInput(kind, [-1, 2**63][: max(n, 2)] + [0] * max(0, n - 2), {"device": device}, raises)
    raise ValueError(f"unknown bad-input kind {kind!r}")
