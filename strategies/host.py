"""Strategies for the host data users pass to ``async_tensor_h2d``.

Built on :mod:`hypothesis.extra.numpy` (``arrays``, ``array_shapes``) for shapes and
values. Two things had to be written here because no library strategy does them:

- *layouts with a chosen backing store*: the strided views (transposed, sliced,
  offset, expanded, reversed, Fortran, byte-swapped, read-only, channels-last) are
  made by allocating the backing storage first (pinned when asked) and viewing into
  it, so a pinned view really is pinned (pinning a tensor and then re-laying it out
  would give a pageable copy);
- *values valid for a (source, target) dtype pair*: hypothesis draws values of the
  source dtype; a value the target cannot represent (NaN, inf, out of integer range)
  is replaced by zero, so every valid-input example stays valid without ``assume``.
  bfloat16 and float8 have no numpy dtype: they are drawn as raw bit patterns
  (uint16 / uint8) and viewed, which covers every encoding, NaN and inf included.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import _validate as _v
from ._dtypes import FLOAT8_DTYPES, NUMPY_OF, UNSIGNED_WIDE_DTYPES, USER_DTYPES, int_range, is_integer

__all__ = [
    "ARRAY_LAYOUTS",
    "HOST_KINDS",
    "TENSOR_LAYOUTS",
    "array_in_layout",
    "domain_kinds",
    "set_bits",
    "tensor_values",
    "host_data",
    "nested_lists",
    "numpy_arrays",
    "cpu_tensors",
    "tensor_in_layout",
    "shapes",
    "torch_dtypes",
    "pinning_available",
]

TENSOR_LAYOUTS = ("contiguous", "transposed", "sliced", "offset", "expanded", "channels_last")
ARRAY_LAYOUTS = (
    "contiguous",
    "fortran",
    "reversed",
    "flipped",
    "fortran-flipped",
    "sliced",
    "offset",
    "broadcast",
    "byteswapped",
    "readonly",
)


#: The kinds of host data :func:`host_data` draws.
HOST_KINDS = ("list", "ndarray", "tensor", "list-of-arrays")


#: pinned: True, False or None. Whether pinning exists here is checked at draw time (a
#: module-level @given(cpu_tensors(pinned=True)) must import on a CPU-only machine, where
#: its test is skipped), with the ValueError of cpu_tensors.
_pinned_arg = _v.boolean(optional=True)


def torch_pin_memory_available() -> bool:
    """Whether this process can allocate pinned host memory (a one-byte ``pin_memory=True`` try).

    The kit's own detection, independent of any target's: used as the default of
    :attr:`Target.pin_memory_available`, by the strategies and by the adapters.
    """
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, pin_memory=True)
    except RuntimeError:
        return False
    return True


def pinning_available() -> bool:
    """Whether pinned host tensors can be drawn on this machine (:func:`torch_pin_memory_available`)."""
    return torch_pin_memory_available()


@_v.eager(float8=_v.boolean(), unsigned_wide=_v.boolean(), exclude=_v.dtypes())
def torch_dtypes(
    *, float8: bool = True, unsigned_wide: bool = False, exclude: tuple[torch.dtype, ...] = ()
) -> st.SearchStrategy[torch.dtype]:
    """The dtypes users pass: bool, (u)int8..int64, float16, bfloat16, float32, float64, float8.

    - float8: include the installed torch's float8 dtypes (default True).
    - unsigned_wide: include uint16/uint32/uint64 (default False: data of these dtypes
      has few torch kernels; as *target* dtypes they are drawn by ``h2d_calls``).
    - exclude: dtypes to leave out.

    Shrinks toward ``torch.bool`` then the small integer dtypes.
    """
    choices = [
        d
        for d in USER_DTYPES + (FLOAT8_DTYPES if float8 else ()) + (UNSIGNED_WIDE_DTYPES if unsigned_wide else ())
        if d not in exclude
    ]
    return st.sampled_from(choices)


@_v.eager(min_dims=_v.integer(), max_dims=_v.integer(), min_side=_v.integer(), max_side=_v.integer())
def shapes(
    *, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 5
) -> st.SearchStrategy[tuple[int, ...]]:
    """Array shapes: 0-d, empty (a zero side), 1-D and N-D. Thin wrapper of ``hnp.array_shapes``."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def _value_domain(source: torch.dtype, target: torch.dtype | None) -> tuple[int, int] | None:
    """Integer range both dtypes represent (None when the target imposes no integer range)."""
    if target is None or not is_integer(target) or source is torch.bool:
        return None
    lo, hi = int_range(target)
    if is_integer(source):
        slo, shi = int_range(source)
        return max(lo, slo), min(hi, shi)
    return lo, hi


def _make_valid(values: torch.Tensor, target: torch.dtype | None) -> torch.Tensor:
    """Replace values ``target`` cannot represent (the reference would reject them) by 0.

    A float is representable in an integer dtype when it is finite and its value truncated
    toward zero lies in the dtype's range (``-0.9`` into uint8 is 0: valid).
    """
    if target is None or not is_integer(target) or not values.is_floating_point():
        return values
    wide = values.to(torch.float64)
    lo, hi = int_range(target)
    whole = torch.trunc(wide)
    ok = torch.isfinite(wide) & (whole >= float(lo)) & (whole <= float(hi)) & (whole < float(hi + 1))
    return torch.where(ok, values, torch.zeros((), dtype=values.dtype))


#: Bit patterns that random floats rarely hit and copies must keep: NaNs with a payload
#: and both signs, a signalling NaN, -0.0, the smallest subnormal, inf. (Hypothesis'
#: floats favour "nasty" values, but not NaN payloads, which a copy that canonicalises
#: NaNs would lose; bfloat16 is drawn as raw bits, where a NaN is 1 pattern in 256.)
_SPECIAL_BITS: dict[torch.dtype, tuple[int, ...]] = {
    torch.float16: (0x7E01, 0xFE00, 0x7C01, 0x8000, 0x0001, 0x7C00),
    torch.bfloat16: (0x7FC1, 0xFFC0, 0x7F81, 0x8000, 0x0001, 0x7F80),
    torch.float32: (0x7FC00001, 0xFFC00000, 0x7F800001, 0x80000000, 0x00000001, 0x7F800000),
    torch.float64: (
        0x7FF8000000000001,
        0xFFF8000000000000,
        0x7FF0000000000001,
        0x8000000000000000,
        0x1,
        0x7FF0000000000000,
    ),
}


def set_bits(values: torch.Tensor, index: int, bits: int) -> None:
    """Write the unsigned bit pattern ``bits`` into element ``index`` (flat) of contiguous ``values`` (2, 4 or 8-byte dtype)."""
    width = 8 * values.element_size()
    signed = bits - (1 << width) if bits >= 1 << (width - 1) else bits
    values.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[values.element_size()]).reshape(-1)[index] = signed


#: Largest finite values (both signs) of each float dtype, as bit patterns: the extremes a narrower staging
#: dtype turns into inf (bfloat16 through float16 above 65,504).
_EXTREME_BITS: dict[torch.dtype, tuple[int, ...]] = {
    torch.float16: (0x7BFF, 0xFBFF),
    torch.bfloat16: (0x7F7F, 0xFF7F),
    torch.float32: (0x7F7FFFFF, 0xFF7FFFFF),
    torch.float64: (0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF),
}


def _with_specials(draw: st.DrawFn, values: torch.Tensor) -> torch.Tensor:
    """Overwrite up to three elements of ``values`` (contiguous, a float dtype) with special bit patterns, or, drawn
    now and then, every element with one of them: a list of signed zeros only, of one NaN payload only, of the
    largest finite value only (a shortcut for "all zeros" or "all equal" must keep the bits)."""
    specials = _SPECIAL_BITS.get(values.dtype)
    if specials is None or values.numel() == 0:
        return values
    specials = specials + _EXTREME_BITS.get(values.dtype, ())
    if draw(st.sampled_from((False,) * 5 + (True,)), label="one special value everywhere"):
        bits = draw(st.sampled_from(specials), label="the special value")
        for i in range(values.numel()):
            set_bits(values, i, bits)
        return values
    picks = draw(
        st.lists(st.tuples(st.integers(0, values.numel() - 1), st.sampled_from(specials)), max_size=3),
        label="special bit patterns",
    )
    for i, bits in picks:
        set_bits(values, i, bits)
    return values


@st.composite
def tensor_values(
    draw: st.DrawFn, dtype: torch.dtype, shape: tuple[int, ...], target: torch.dtype | None = None
) -> torch.Tensor:
    """A contiguous CPU tensor of ``dtype`` and ``shape`` (a fixed shape) whose values ``target`` represents (None: any).

    Float values include special bit patterns (NaN payloads, -0.0, subnormals, inf)
    unless ``target`` is an integer dtype (which must reject NaN/inf).
    """
    specials = target is None or not is_integer(target)
    if dtype in FLOAT8_DTYPES or dtype is torch.bfloat16:
        bits = np.uint8 if dtype in FLOAT8_DTYPES else np.uint16
        raw = draw(hnp.arrays(bits, shape), label="bit patterns")
        values = torch.from_numpy(np.ascontiguousarray(raw)).view(dtype).clone()
        if specials:
            values = _with_specials(draw, values)
        return _make_valid(values, target)
    npdt = NUMPY_OF[dtype]
    domain = _value_domain(dtype, target)
    if domain is not None and not is_integer(dtype):
        # Float source, integer target: integral parts in range plus a fraction, drawn as
        # float64 and rounded to the source dtype by torch (hnp.arrays refuses lossy casts).
        lo, hi = domain
        elements: st.SearchStrategy[Any] | None = st.builds(
            lambda i, f: float(i) + f, st.integers(lo, hi), st.floats(-0.999, 0.999)
        )
        arr = draw(hnp.arrays(np.float64, shape, elements=elements), label="values")
        return _make_valid(torch.from_numpy(np.ascontiguousarray(arr)).to(dtype), target)
    elements = st.integers(*domain) if domain is not None else None
    arr = draw(hnp.arrays(npdt, shape, elements=elements), label="values")
    values = torch.from_numpy(np.ascontiguousarray(arr)).clone()
    if specials and values.is_floating_point():
        values = _with_specials(draw, values)
    return _make_valid(values, target)


def _backing(shape: tuple[int, ...], dtype: torch.dtype, pinned: bool) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, pin_memory=pinned)


def _tensor_layout(values: torch.Tensor, layout: str, pinned: bool) -> torch.Tensor:
    """A view with ``values``' values (or, for 'expanded', its first slice repeated) in ``layout``."""
    shape, dtype = tuple(values.shape), values.dtype
    if layout == "transposed" and values.dim() >= 2:
        perm = list(range(values.dim()))[::-1]
        store = _backing(tuple(shape[p] for p in perm), dtype, pinned)
        store.copy_(values.permute(perm))
        return store.permute(perm)
    if layout == "sliced" and values.dim() >= 1:
        store = _backing(shape[:-1] + (2 * shape[-1] + 1,), dtype, pinned)
        view = store[..., 1::2]
        view.copy_(values)
        return view
    if layout == "offset":
        store = _backing((values.numel() + 3,), dtype, pinned)
        view = store[3:].view(shape)
        view.copy_(values)
        return view
    if layout == "expanded" and values.dim() >= 1 and shape[0] > 1:
        store = _backing((1,) + shape[1:], dtype, pinned)
        store.copy_(values[:1])
        return store.expand(shape)
    if layout == "channels_last" and values.dim() == 4:
        store = torch.empty(shape, dtype=dtype, pin_memory=pinned).contiguous(memory_format=torch.channels_last)
        if pinned and not store.is_pinned():  # .contiguous() may reallocate pageable
            store = _backing((shape[0], shape[2], shape[3], shape[1]), dtype, True).permute(0, 3, 1, 2)
        store.copy_(values)
        return store
    store = _backing(shape, dtype, pinned)
    store.copy_(values)
    return store


@_v.eager(
    dtype=_v.dtype(strategy=True),
    shape=_v.shape(),
    pinned=_pinned_arg,
    layout=_v.one_of(TENSOR_LAYOUTS),
    target_dtype=_v.dtype(),
)
@st.composite
def cpu_tensors(
    draw: st.DrawFn,
    dtype: torch.dtype | st.SearchStrategy[torch.dtype] | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    *,
    pinned: bool | None = None,
    layout: str | None = None,
    target_dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """CPU tensors in every strided layout, pinned or pageable.

    - dtype: a torch dtype or a strategy (default :func:`torch_dtypes`).
    - shape: a shape or a strategy (default :func:`shapes`).
    - pinned: True / False, or None to draw (always False where pinning is unavailable).
      A pinned tensor's *backing storage* is pinned: views of it report ``is_pinned()``.
    - layout: one of ``TENSOR_LAYOUTS`` or None to draw. Layouts that do not apply to
      the drawn shape (transposed 1-D, channels_last of non-4-D) fall back to contiguous.
    - target_dtype: if given, every value is representable in it (valid-input draws).

    Example: ``cpu_tensors(torch.int32, (3, 4), layout="transposed")`` gives a
    ``(3, 4)`` int32 tensor with strides ``(1, 3)``.
    """
    dtype = draw(
        torch_dtypes() if dtype is None else dtype if isinstance(dtype, st.SearchStrategy) else st.just(dtype),
        label="dtype",
    )
    shape = draw(
        shapes() if shape is None else shape if isinstance(shape, st.SearchStrategy) else st.just(shape), label="shape"
    )
    if pinned is None:
        pinned = draw(st.booleans(), label="pinned") if pinning_available() else False
    elif pinned and not pinning_available():
        raise ValueError("pinned=True but this machine cannot allocate pinned memory")
    layout = draw(st.sampled_from(TENSOR_LAYOUTS), label="layout") if layout is None else layout
    values = draw(tensor_values(dtype, tuple(shape), target_dtype))
    return _tensor_layout(values, layout, pinned)


def tensor_in_layout(values: torch.Tensor, layout: str, *, pinned: bool) -> torch.Tensor:
    """A CPU tensor equal to ``values`` (any shape and dtype) whose storage lies in ``layout``.

    ``layout`` is one of ``TENSOR_LAYOUTS``; ``pinned=True`` puts the backing storage in
    page-locked memory (ValueError where pinning is unavailable). For the deterministic
    tables of the contracts: the same layouts :func:`cpu_tensors` draws, on a given shape
    (layouts that do not apply to the shape fall back to contiguous, as there).
    """
    if layout not in TENSOR_LAYOUTS:
        raise ValueError(f"layout must be one of {TENSOR_LAYOUTS}, got {layout!r}")
    if pinned and not pinning_available():
        raise ValueError("pinned=True but this machine cannot allocate pinned memory")
    return _tensor_layout(values, layout, pinned)


def array_in_layout(arr: np.ndarray, layout: str) -> np.ndarray:
    """An ndarray with ``arr``'s values in ``layout`` (one of ``ARRAY_LAYOUTS``); layouts that do not apply to its shape fall back to contiguous.

    For the deterministic tables of the contracts: the layouts :func:`numpy_arrays` draws.
    ValueError for an unknown ``layout``.
    """
    if layout not in ARRAY_LAYOUTS:
        raise ValueError(f"layout must be one of {ARRAY_LAYOUTS}, got {layout!r}")
    if layout == "fortran":
        return np.asfortranarray(arr)
    if layout == "reversed" and arr.ndim >= 1:
        return np.ascontiguousarray(arr[::-1])[::-1]
    if layout == "flipped" and arr.ndim >= 1:
        # Every axis reversed, size-1 axes included (np.flip keeps their negative stride,
        # which np.ascontiguousarray then leaves in place: np.flip(np.array([7]))).
        return np.flip(np.flip(arr).copy())
    if layout == "fortran-flipped" and arr.ndim >= 2:
        # Fortran order with the last axis reversed: the first stride is the item size and a
        # later one is negative (a column-major block read right to left).
        return np.asfortranarray(arr[..., ::-1])[..., ::-1]
    if layout == "sliced" and arr.ndim >= 1:
        store = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1] + 1,), dtype=arr.dtype)
        store[..., 1::2] = arr
        return store[..., 1::2]
    if layout == "offset":
        store = np.zeros(arr.size + 3, dtype=arr.dtype)
        store[3:] = arr.ravel()
        return store[3:].reshape(arr.shape)
    if layout == "broadcast" and arr.ndim >= 1 and arr.shape[0] > 1:
        return np.broadcast_to(arr[:1], arr.shape)
    if layout == "byteswapped" and arr.dtype.itemsize > 1:
        return arr.astype(arr.dtype.newbyteorder("S"))
    if layout == "readonly":
        out = arr.copy()
        out.setflags(write=False)
        return out
    return np.ascontiguousarray(arr)


@_v.eager(
    dtype=_v.dtype(allowed=tuple(NUMPY_OF), strategy=True),
    shape=_v.shape(),
    layout=_v.one_of(ARRAY_LAYOUTS),
    target_dtype=_v.dtype(),
)
@st.composite
def numpy_arrays(
    draw: st.DrawFn,
    dtype: torch.dtype | st.SearchStrategy[torch.dtype] | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    *,
    layout: str | None = None,
    target_dtype: torch.dtype | None = None,
) -> np.ndarray:
    """numpy arrays of the numpy-representable user dtypes in every layout.

    - dtype: a *torch* dtype with a numpy twin (bool, integers, float16/32/64) or a
      strategy of them; default: all of those.
    - shape, target_dtype: as for :func:`cpu_tensors`.
    - layout: one of ``ARRAY_LAYOUTS`` (negative strides, Fortran order, broadcast
      with zero strides, non-native byte order, read-only...) or None to draw.
    """
    dtype = draw(
        st.sampled_from(list(NUMPY_OF))
        if dtype is None
        else dtype
        if isinstance(dtype, st.SearchStrategy)
        else st.just(dtype),
        label="dtype",
    )
    if dtype not in NUMPY_OF:
        raise ValueError(f"dtype={dtype} has no numpy equivalent; pick one of {list(NUMPY_OF)}")
    shape = draw(
        shapes() if shape is None else shape if isinstance(shape, st.SearchStrategy) else st.just(shape), label="shape"
    )
    layout = draw(st.sampled_from(ARRAY_LAYOUTS), label="layout") if layout is None else layout
    values = draw(tensor_values(dtype, tuple(shape), target_dtype)).numpy()
    return array_in_layout(values, layout)


@_v.eager(
    kind=_v.one_of(("bool", "int", "float")),
    shape=_v.shape(min_dims=1),
    target_dtype=_v.dtype(),
    containers=_v.one_of(("list", "tuple", "mixed")),
)
@st.composite
def nested_lists(
    draw: st.DrawFn,
    kind: str | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    *,
    target_dtype: torch.dtype | None = None,
    containers: str | None = None,
) -> list[Any] | tuple[Any, ...]:
    """Rectangular nested Python lists of ``bool``, ``int`` or ``float`` (at least 1-D).

    - kind: "bool", "int" or "float" (None draws one). Ints span int64 unless
      ``target_dtype`` narrows them; floats are float64 values (NaN and inf included
      unless the target is an integer dtype).
    - shape: default :func:`shapes` with ``min_dims=1`` (a list cannot be 0-d).
    - containers: "list", "tuple" or "mixed" (lists and tuples at random levels, as
      ``async_tensor_h2d`` accepts both); None draws one.
    """
    kind = draw(st.sampled_from(["bool", "int", "float"]), label="list kind") if kind is None else kind
    source = {"bool": torch.bool, "int": torch.int64, "float": torch.float64}[kind]
    shape = draw(
        shapes(min_dims=1) if shape is None else shape if isinstance(shape, st.SearchStrategy) else st.just(shape),
        label="shape",
    )
    nested = draw(tensor_values(source, tuple(shape), target_dtype)).tolist()
    containers = (
        draw(st.sampled_from(["list", "list", "tuple", "mixed"]), label="containers")
        if containers is None
        else containers
    )
    if containers == "list":
        return nested
    flips = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)), label="tuple levels")
    levels = [True] * len(shape) if containers == "tuple" else flips

    def convert(value: Any, depth: int) -> Any:
        if not isinstance(value, list):
            return value
        items = [convert(v, depth + 1) for v in value]
        return tuple(items) if levels[depth] else items

    # the top level is a list, so convert returns a container (its leaves are Any)
    return cast("list[Any] | tuple[Any, ...]", convert(nested, 0))


#: A target's input kinds (``contracts.targets.INPUT_KINDS``) -> the :data:`HOST_KINDS` that draw them.
_DRAWN_BY = {
    "list": "list",
    "tuple": "list",
    "ndarray": "ndarray",
    "tensor": "tensor",
    "list-of-arrays": "list-of-arrays",
}


def domain_kinds(inputs: frozenset[str] | None, kinds: tuple[str, ...]) -> tuple[tuple[str, ...], str | None, int]:
    """``(kinds, containers, min_dims)`` that draw only inside a target's declared ``inputs`` (None: no restriction).

    Lists are drawn as lists only when ``"tuple"`` is not declared. 0-d arrays and tensors
    are arrays and tensors (``"scalar"`` is a bare Python or numpy scalar, which this
    strategy never draws), so ``min_dims`` is 0. ValueError naming ``inputs`` when nothing
    of ``kinds`` is inside.
    """
    if inputs is None:
        return kinds, None, 0
    allowed = {_DRAWN_BY[k] for k in inputs if k in _DRAWN_BY}
    narrowed = tuple(k for k in kinds if k in allowed)
    if not narrowed:
        raise ValueError(f"inputs={sorted(inputs)} admits none of the kinds {kinds}")
    containers = None if "tuple" in inputs else "list"
    return narrowed, containers, 0


@_v.eager(kinds=_v.some_of(HOST_KINDS), target_dtype=_v.dtype(), pinned=_pinned_arg, shape=_v.shape(), dtype=_v.dtype())
@st.composite
def host_data(
    draw: st.DrawFn,
    *,
    kinds: tuple[str, ...] = ("list", "ndarray", "tensor"),
    target_dtype: torch.dtype | None = None,
    pinned: bool | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    dtype: torch.dtype | None = None,
    inputs: frozenset[str] | None = None,
) -> Any:
    """Any host data a user passes: a nested list, a numpy array, a CPU tensor, or a list of arrays.

    - kinds: which kinds to draw from ("list", "ndarray", "tensor", "list-of-arrays": a
      list or tuple of same-shaped ndarrays, at least 2-D overall).
    - target_dtype: if given, every value is representable in it.
    - pinned: for tensors, as in :func:`cpu_tensors`.
    - shape / dtype: fix the shape or the source dtype (dtype must suit every kind drawn).
    - inputs: a target's declared input kinds (:attr:`Target.inputs`): draw only inside them.
    """
    kinds, containers, min_dims = domain_kinds(inputs, kinds)
    if shape is None and min_dims:
        shape = shapes(min_dims=min_dims)
    kind = draw(st.sampled_from(kinds), label="data kind")
    if kind == "list-of-arrays":
        # A list (or tuple) of same-shaped ndarrays: torch.tensor keeps their dtype.
        fixed = shape if shape is not None and not isinstance(shape, st.SearchStrategy) else None
        if fixed is not None and len(fixed) < 2:
            kind = "list"
        else:
            # not fixed: shape is None or a strategy
            whole = (
                fixed
                if fixed is not None
                else draw(
                    shapes(min_dims=2)
                    if shape is None
                    else cast("st.SearchStrategy[tuple[int, ...]]", shape).filter(lambda s: len(s) >= 2),
                    label="shape",
                )
            )
            np_dtype = dtype if dtype in NUMPY_OF else draw(st.sampled_from(list(NUMPY_OF)), label="array dtype")
            rows = [
                draw(
                    numpy_arrays(
                        np_dtype,
                        tuple(whole[1:]),
                        layout=draw(st.sampled_from(("contiguous", "fortran", "flipped", "sliced")), label="layout"),
                        target_dtype=target_dtype,
                    )
                )
                for _ in range(whole[0])
            ]
            return tuple(rows) if containers is None and draw(st.booleans(), label="tuple") else rows
    if kind == "list":
        list_kind = None
        if dtype is not None:
            list_kind = "bool" if dtype is torch.bool else "int" if is_integer(dtype) else "float"
        if shape is not None and not isinstance(shape, st.SearchStrategy) and len(shape) == 0:
            shape = (1,)
        return draw(nested_lists(list_kind, shape, target_dtype=target_dtype, containers=containers))
    if kind == "ndarray":
        return draw(numpy_arrays(dtype, shape, target_dtype=target_dtype))
    return draw(cpu_tensors(dtype, shape, pinned=pinned, target_dtype=target_dtype))
