"""Bad inputs: calls that must raise a documented exception, one small builder per kind of the catalogue's bad-input row.

Every kind draws the same three things first (the kind, an ``out`` dtype, a length); its
builder in :data:`_BUILDERS` then draws whatever else it needs and returns the
:class:`BadInput`, with the exception type ``strategies.errors.BAD_INPUT_KINDS`` names.
The value-range kinds (:data:`~strategies.value_ranges.VALUE_KINDS`) share one builder.
"""

from __future__ import annotations

import decimal
import fractions
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st

from . import _validate as _v
from ._dtypes import UNSUPPORTED_DTYPES
from .describe import describe_call
from .errors import BAD_INPUT_KINDS
from .out_tensors import out_buffers
from .value_ranges import _INT_TARGETS, REAL_TARGETS, ROUTES, VALUE_KINDS, value_case


@dataclass
class BadInput:
    """A call that must fail: ``kind`` (a catalogue entry), its ``kwargs``, the exception type."""

    kind: str
    data: Any
    kwargs: dict[str, Any]
    raises: type[BaseException]

    def __repr__(self) -> str:
        return f"BadInput({self.kind!r}, expects {self.raises.__name__}): {describe_call(self.data, self.kwargs)}"


def value_bad_inputs_table(device: torch.device) -> list[BadInput]:
    """Every value-range kind x every carrier x every route x every variant (3 elements), each kind x carrier once at
    :data:`LARGE_VALUE_ROWS_N` elements, and every ``huge-int-among-floats`` case: a deterministic table (no luck
    needed)."""
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
        # and each kind at a large size (past 2**16 elements: an outside round's range check skipped for large
        # payloads "as a full pass over bulk data" let them wrap silently)
        for carrier in carriers:
            if carrier != "scalar":
                data, dt = value_case(kind, carrier, LARGE_VALUE_ROWS_N)
                rows.append(BadInput(kind, data, {"dtype": dt, "device": device}, BAD_INPUT_KINDS[kind]))
            if carrier in ("ndarray", "tensor"):  # and past 16 MiB of float64: any size gate a check could have
                data, dt = value_case(kind, carrier, 3)
                rows.append(
                    BadInput(
                        kind, _widened(data, HUGE_VALUE_ROWS_N), {"dtype": dt, "device": device}, BAD_INPUT_KINDS[kind]
                    )
                )
    return rows + _huge_ints_among_floats_table(device)


#: The size of the value table's large rows (:func:`value_bad_inputs_table`): past 65,536 elements.
LARGE_VALUE_ROWS_N = 70_000
#: The size of its huge rows (arrays and tensors only): past 2**21 elements, 16 MiB of float64, so that a check
#: skipped past 1 MiB, 4 MiB, 2**20 elements or any such gate still meets a bad value.
HUGE_VALUE_ROWS_N = (1 << 21) + 3


def _widened(small: Any, n: int) -> Any:
    """A 1-d ``small`` of 3 elements widened to ``n``: its first and last element kept, its middle one everywhere
    between (built in place: a list of 2**21 Python numbers would cost a second a row)."""
    if isinstance(small, np.ndarray):
        big = np.broadcast_to(small[1], (n,)).copy()
    else:
        big = small[1].expand(n).clone()
    big[0] = small[0]
    big[-1] = small[-1]
    return big


def _huge_ints_among_floats_table(device: torch.device) -> list[BadInput]:
    """Every ``huge-int-among-floats`` case (:func:`_huge_int_among_floats`): each float beside each int past int64,
    flat and nested, with no dtype and with float64 (a NaN poisons a max-based guard; outside round r39)."""
    rows: list[BadInput] = []
    for special in _HUGE_FLOATS:
        for big in _HUGE_INTS:
            for nested in (False, True):
                for extra in ({}, {"dtype": torch.float64}):
                    kwargs: dict[str, Any] = {"device": device, **extra}
                    data = _huge_int_list(big, special, nested)
                    rows.append(
                        BadInput("huge-int-among-floats", data, kwargs, BAD_INPUT_KINDS["huge-int-among-floats"])
                    )
    return rows


#: The floats and the ints past int64 of ``huge-int-among-floats`` (drawn by :func:`_huge_int_among_floats`, every
#: pair a row of :func:`value_bad_inputs_table`).
_HUGE_FLOATS = (float("nan"), float("inf"), float("-inf"), 1.5)
_HUGE_INTS = (2**63, -(2**63) - 1, 2**64)


def _huge_int_list(big: int, special: float, nested: bool) -> list[Any]:
    return [[1.0, special], [big, 2]] if nested else [-1, big, special]


def _bad_kinds(where: str, value: Any) -> Any:
    return _v.some_of(tuple(sorted(BAD_INPUT_KINDS)), optional=True)(where, value)


def _gen() -> Iterator[int]:
    yield from range(3)


@dataclass
class _Drawn:
    """What every kind has drawn before its builder runs: the kind and its exception, an ``out`` dtype, a length ``n``."""

    draw: st.DrawFn
    device: torch.device
    kind: str
    raises: type[BaseException]
    out_dtype: torch.dtype
    n: int
    good: list[int]  # list(range(n)): valid data

    def out_for(self, shape: tuple[int, ...], dt: torch.dtype | None = None) -> torch.Tensor:
        """A drawn ``out`` of ``shape`` (any layout, poisoned), of ``dt`` (default: the drawn ``out`` dtype)."""
        return self.draw(out_buffers(shape, self.out_dtype if dt is None else dt, self.device))

    def bad(self, data: Any, kwargs: dict[str, Any]) -> BadInput:
        return BadInput(self.kind, data, kwargs, self.raises)


_Builder = Callable[[_Drawn], BadInput]


def _value_range(d: _Drawn) -> BadInput:
    carriers = VALUE_KINDS[d.kind][0]
    carrier = d.draw(st.sampled_from(carriers), label="data kind")
    route = d.draw(st.sampled_from(ROUTES), label="route")
    pick = d.draw(st.integers(0, 7), label="variant")
    data, dt = value_case(d.kind, carrier, d.n, pick)
    kwargs: dict[str, Any] = (
        {"out": d.out_for(() if carrier == "scalar" else (d.n,), dt)}
        if route == "out"
        else {"dtype": dt, "device": d.device}
    )
    return d.bad(data, kwargs)


def _device_out_disagree(d: _Drawn) -> BadInput:
    other = torch.device("cpu") if d.device.type == "cuda" else ("cuda:0" if torch.cuda.is_available() else "meta")
    return d.bad(d.good, {"device": other, "out": d.out_for((d.n,))})


def _missing_cuda_index(d: _Drawn) -> BadInput:
    # the first index past the visible devices (an off-by-one bound: the GPU mutation run
    # left `index <= count` alive) or one far past them
    index = torch.cuda.device_count() + d.draw(st.sampled_from([0, 7]), label="past the last index by")
    # every spelling of the index: a host without CUDA refuses device=0 too (an `if not device` takes it for none)
    spell = d.draw(st.sampled_from(["str", "int", "numpy", "device"]), label="spelled as")
    # with and without out: with an out on another device the disagreement is refused first,
    # so the index bound itself is reached only without one (found by the GPU mutation run)
    spelled: Any = {
        "str": f"cuda:{index}",
        "int": index,
        "numpy": np.int64(index),
        "device": torch.device("cuda", index),
    }[spell]
    kwargs = {"device": spelled}
    if d.draw(st.booleans(), label="with out"):
        kwargs["out"] = d.out_for((d.n,))
    return d.bad(d.good, kwargs)


def _empty_complex_to_real(d: _Drawn) -> BadInput:
    carrier = d.draw(st.sampled_from(["ndarray", "tensor"]), label="data kind")
    data: Any = np.zeros(0, np.complex64) if carrier == "ndarray" else torch.zeros(0, dtype=torch.complex64)
    dt = d.draw(st.sampled_from(REAL_TARGETS), label="dtype")
    if d.draw(st.sampled_from(ROUTES), label="route") == "out":
        return d.bad(data, {"out": d.out_for((0,), dt)})
    return d.bad(data, {"dtype": dt, "device": d.device})


#: Data already on a device (meta; on a CUDA host also CUDA memory, which ``.cpu()`` would quietly copy back), its
#: destination named by ``out`` (the general path) or by ``device`` alone: a hot path that takes ``device=`` calls
#: and tests only pinned-ness (a CUDA tensor is not pinned) stages it through host memory and back instead of
#: refusing it (held-out round r49, its GPU half: the ``out`` rows alone never reached that path).
_DEVICE_DATA_VARIANTS = tuple(
    f"{where}, with {route}"
    for where in (("meta", "cuda") if torch.cuda.is_available() else ("meta",))
    for route in ("out", "device")
)


def _device_tensor_data(d: _Drawn) -> BadInput:
    variant = d.draw(st.sampled_from(_DEVICE_DATA_VARIANTS), label="variant")
    where, route = variant.split(", with ")
    data = torch.zeros(d.n, device=where)
    return d.bad(data, {"out": d.out_for((d.n,))} if route == "out" else {"device": d.device})


def _device_bool(d: _Drawn) -> BadInput:
    # both bools, and numpy's: False == 0 and True == 1 as dict keys, so a device cache keyed by value alone
    # hands a bool the device an int spelled
    flag = d.draw(st.sampled_from([False, True, np.bool_(False), np.bool_(True)]), label="bool")
    return d.bad(d.good, {"device": flag})


def _out_as_strided_overlap(d: _Drawn) -> BadInput:
    side = d.n + 1  # a (side, side) view of side*side elements with strides (1, 1): rows overlap
    data = [[float(i)] * side for i in range(side)]
    return d.bad(data, {"out": d.out_for((side * side,), torch.float32).as_strided((side, side), (1, 1))})


def _out_as_strided_overlap_3d(d: _Drawn) -> BadInput:
    # shape (2, 2, 2), strides (1, 2, 3) over 7 elements: element (1, 1, 0) and (0, 0, 1) share offset 3;
    # each stride alone steps past the one below it, only their summed reach shows the overlap
    data = [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
    return d.bad(data, {"out": d.out_for((7,), torch.float32).as_strided((2, 2, 2), (1, 2, 3))})


def _out_inference_tensor(d: _Drawn) -> BadInput:
    # Made under torch.inference_mode() (as in a serving loop), written outside it:
    # torch's copy_ writes first and raises RuntimeError after.
    with torch.inference_mode():
        out = d.out_for((d.n,)).clone()
    return d.bad(d.good, {"out": out})


#: How an ``out`` requiring grad is made: a leaf, a result of the graph (torch itself lets an in-place write into a
#: non-leaf through and records it: held-out round r40 narrowed the refusal to leaves), a view of a leaf, and the
#: data itself (``out`` that *is* ``data`` is allowed, but not past the checks: held-out round r43 skipped them).
_GRAD_OUTS = ("leaf", "non-leaf", "view of a leaf", "data itself")


def _out_requires_grad(d: _Drawn) -> BadInput:
    variant = d.draw(st.sampled_from(_GRAD_OUTS), label="variant")
    leaf = torch.zeros(d.n + (variant == "view of a leaf"), dtype=torch.float32, device=d.device, requires_grad=True)
    if variant == "data itself":
        return d.bad(leaf, {"out": leaf})
    out = leaf if variant == "leaf" else leaf * 1 if variant == "non-leaf" else leaf[: d.n]
    return d.bad(d.good, {"out": out})


def _out_unsupported_dtype(d: _Drawn) -> BadInput:
    # complex32: dtype=torch.complex32 is refused, so an out of that dtype must be too.
    with warnings.catch_warnings():  # "ComplexHalf support is experimental"
        warnings.simplefilter("ignore", UserWarning)
        out = torch.zeros(d.n, dtype=torch.complex32, device=d.device)
    return d.bad(d.good, {"out": out})


#: How ``out-aliases-data`` makes data and out share memory.
_ALIAS_VARIANTS = (
    "offset by one",
    "shared only at the far end",
    "same first element, other strides",
    "out's conjugate view",
    "out's negative view",
    "strided views a row apart",
)
#: ``device`` values of no accepted type (a list and a dict are unhashable: a device cache looked up before the type
#: check raises "unhashable type", naming nothing: held-out round r40); a tensor (a slip for ``out=``, or
#: ``Tensor.to(other)``'s spelling: held-out round r55 took its device) and a dtype (vLLM's old ``(data, dtype,
#: target_device)`` order: r55 swapped the two back when ``device`` was a dtype).
_WRONG_DEVICES: tuple[Any, ...] = (["cpu"], {"cpu": 0}, 1.5, object(), torch.zeros(1), torch.int32)
#: ``dtype`` values that are not dtypes: a dtype's name, and unhashable ones (a validation memoised with
#: ``functools.lru_cache`` raises "unhashable type", naming nothing: held-out round r43).
_WRONG_DTYPES: tuple[Any, ...] = ("int32", [torch.int32], {"dtype": torch.int32}, 1.5)


def _out_aliases_data(d: _Drawn) -> BadInput:
    m = max(d.n, 2)  # base[:1] and base[1:] would be disjoint bytes, which is valid
    variant = d.draw(st.sampled_from(_ALIAS_VARIANTS), label="variant")
    if variant in ("out's conjugate view", "out's negative view"):
        # data a lazy conj / neg view of out itself: the same memory, the bit set on the view (resolving the bit
        # into a copy before the overlap check hides it: held-out round r40)
        base = torch.tensor([1 + 2j, 3 - 4j][: min(m, 2)] * (m // 2 + 1), dtype=torch.complex64)[:m]
        return d.bad(base.conj() if variant == "out's conjugate view" else torch._neg_view(base), {"out": base})
    if variant == "strided views a row apart":
        # every other column of two (3, 3) windows of one buffer, a row apart: their elements interleave with a step of
        # 2 but meet in two rows (held-out round r57 cleared views whose offsets differ modulo the innermost step)
        base = torch.arange(12, dtype=torch.float32)
        return d.bad(base[:9].view(3, 3)[:, ::2], {"out": base[3:].view(3, 3)[:, ::2]})
    if variant == "same first element, other strides":
        # data and out start at the same address but are different views (out steps by 2): an exemption for
        # "out is data" widened to "same data_ptr" lets them through (held-out round r38)
        base = torch.arange(2 * m, dtype=torch.float32)
        return d.bad(base[:m], {"out": base[::2]})
    if variant == "shared only at the far end":
        # one element shared, the last of data and the first of out: a byte-span bound
        # that falls short of the end misses it (the contract suite's mutation run)
        base = torch.arange(2 * m - 1, dtype=torch.float32)
        return d.bad(base[:m], {"out": base[m - 1 :]})
    base = torch.arange(m + 1, dtype=torch.float32)  # host memory on every device: data and out overlap
    return d.bad(base[:m], {"out": base[1:]})


def _out_aliases_data_array(d: _Drawn) -> BadInput:
    m = max(d.n, 2)
    # data: an ndarray view of the same host memory as out; one-byte dtypes (no byte order)
    # and a zero-stride broadcast view take paths of their own in an ndarray's conversion
    # (the contract suite's mutation run)
    variant = d.draw(st.sampled_from(["float32", "uint8", "bool", "broadcast"]), label="variant")
    if variant == "broadcast":
        base = torch.arange(m + 1, dtype=torch.int64)
        return d.bad(np.broadcast_to(base.numpy()[:1], (m,)), {"out": base[:m]})
    base = torch.arange(m + 1, dtype=torch.int64).to(
        {"float32": torch.float32, "uint8": torch.uint8, "bool": torch.bool}[variant]
    )
    return d.bad(base.numpy()[:m], {"out": base[1:]})


def _nested_tensor_data(d: _Drawn) -> BadInput:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    return d.bad(nested, {"device": d.device})


def _nested_out(d: _Drawn) -> BadInput:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested = torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)])
    return d.bad([1.0] * d.n, {"out": nested})


def _out_on_meta(d: _Drawn) -> BadInput:
    kwargs: dict[str, Any] = {"out": torch.empty(d.n, device="meta")}
    if d.draw(st.booleans(), label="device given too"):
        kwargs["device"] = d.device
    return d.bad([1.0] * d.n, kwargs)


def _complex32_tensor_data(d: _Drawn) -> BadInput:
    with warnings.catch_warnings():  # "ComplexHalf support is experimental"
        warnings.simplefilter("ignore", UserWarning)
        data = torch.zeros(d.n, dtype=torch.complex32)
    return d.bad(data, {"device": d.device})


def _longdouble_array(d: _Drawn) -> BadInput:
    # numpy's extended precision (float128 on x86-64), a dtype torch lacks; where longdouble
    # is float64 itself (some platforms) an object array of floats stands in: refused too
    n = d.n
    arr = np.ones(n, dtype=np.longdouble) if np.dtype(np.longdouble).itemsize > 8 else np.ones(n).astype(object)
    return d.bad(arr, {"device": d.device})


#: Layouts other than strided, each made from a (2, 2) float32 tensor (the held-out round r39: a check of
#: ``is_sparse``, COO only, let CSR, CSC, BSR and mkldnn tensors through to torch's own errors).
_NON_STRIDED: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sparse_coo": lambda t: t.to_sparse(),
    "sparse_csr": lambda t: t.to_sparse_csr(),
    "sparse_csc": lambda t: t.to_sparse_csc(),
    "sparse_bsr": lambda t: t.to_sparse_bsr((1, 1)),
    **({"mkldnn": lambda t: t.to_mkldnn()} if torch.backends.mkldnn.is_available() else {}),  # type: ignore[no-untyped-call]
}


def _non_strided(d: _Drawn, where: str) -> BadInput:
    layout = d.draw(st.sampled_from(sorted(_NON_STRIDED)), label=f"{where} layout")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Sparse CSR tensor support is in beta state"
        made = _NON_STRIDED[layout](torch.zeros(2, 2))
    if where == "out":
        return d.bad([[1.0, 2.0], [3.0, 4.0]], {"out": made})
    return d.bad(made, {"out": d.out_for((2, 2), torch.float32)})


#: What an object array holds in "object-array" (one row each in :func:`bad_inputs_table`).
_OBJECT_ELEMENTS = ("object()", "int", "float", "bool")


def _object_array(d: _Drawn) -> BadInput:
    # numpy dtype object, of non-numbers and of numbers alike: refused whatever its elements hold (held-out round
    # r56 took an object array of Python ints, a pandas nullable column's shape, as the list of its elements)
    element = d.draw(st.sampled_from(_OBJECT_ELEMENTS), label="object array of")
    value: Any = {"object()": object(), "int": 1, "float": 1.5, "bool": True}[element]
    return d.bad(np.array([value] * d.n, dtype=object), {"out": d.out_for((d.n,))})


def _huge_int_among_floats(d: _Drawn) -> BadInput:
    # an int past int64 in a list that also holds a float: NaN, +-inf or a plain one, flat or nested, with or without
    # a float dtype (the list would be float, but the int is still past what the reference's lists take)
    special = d.draw(st.sampled_from(_HUGE_FLOATS), label="float")
    big = d.draw(st.sampled_from(_HUGE_INTS), label="int")
    data = _huge_int_list(big, special, d.draw(st.booleans(), label="nested"))
    kwargs: dict[str, Any] = {"device": d.device}
    if d.draw(st.booleans(), label="with a float dtype"):
        kwargs["dtype"] = d.draw(st.sampled_from([torch.float32, torch.float64]), label="dtype")
    return d.bad(data, kwargs)


#: Bad-input kind -> its builder (every kind of ``strategies.errors.BAD_INPUT_KINDS``).
_BUILDERS: dict[str, _Builder] = {
    "none": lambda d: d.bad(None, {"out": d.out_for((d.n,))}),
    "string": lambda d: d.bad("123", {"out": d.out_for((3,))}),
    "bytes": lambda d: d.bad(b"123", {"out": d.out_for((3,))}),
    "dict": lambda d: d.bad({0: 1}, {"out": d.out_for((1,))}),
    "set": lambda d: d.bad({1, 2}, {"out": d.out_for((2,))}),
    "generator": lambda d: d.bad(_gen(), {"out": d.out_for((3,))}),
    "list-of-strings": lambda d: d.bad(["1"] * d.n, {"out": d.out_for((d.n,))}),
    "list-with-none": lambda d: d.bad(d.good[:-1] + [None], {"out": d.out_for((d.n,))}),
    "ragged-list": lambda d: d.bad([d.good, d.good[:-1] + [0, 0]], {"out": d.out_for((2, d.n))}),
    "nested-scalar-mix": lambda d: d.bad([d.good, 1], {"out": d.out_for((2, d.n))}),
    "object-array": _object_array,
    "string-array": lambda d: d.bad(np.array(["a"] * d.n), {"out": d.out_for((d.n,))}),
    "datetime-array": lambda d: d.bad(
        np.array(["2026-11-30"] * d.n, dtype="datetime64[D]"), {"out": d.out_for((d.n,))}
    ),
    # the value-range kinds ("uint32-out-of-range" among them): drawn over every carrier and route
    **dict.fromkeys(VALUE_KINDS, _value_range),
    "wrong-shape-out": lambda d: d.bad(d.good, {"out": d.out_for((d.n + 1,))}),
    "broadcastable-out": lambda d: d.bad([1], {"out": d.out_for((4,))}),
    "scalar-into-vector-out": lambda d: d.bad(5, {"out": d.out_for((d.n,))}),
    "dtype-mismatch-out": lambda d: d.bad(d.good, {"dtype": torch.float64, "out": d.out_for((d.n,), torch.int32)}),
    "no-target": lambda d: d.bad(d.good, {}),
    "dtype-not-a-dtype": lambda d: d.bad(
        d.good, {"dtype": d.draw(st.sampled_from(_WRONG_DTYPES), label="dtype"), "out": d.out_for((d.n,))}
    ),
    "numpy-dtype": lambda d: d.bad(d.good, {"dtype": np.int32, "out": d.out_for((d.n,))}),
    "python-type-dtype": lambda d: d.bad(
        d.good,
        {"dtype": d.draw(st.sampled_from([float, int, bool, complex]), label="python type"), "device": d.device},
    ),
    "out-not-a-tensor": lambda d: d.bad(d.good, {"out": np.zeros(d.n), "device": d.device}),
    "out-requires-grad": _out_requires_grad,
    "out-overlapping": lambda d: d.bad(d.good + [0], {"out": d.out_for((1,)).expand(d.n + 1)}),
    "bad-device-string": lambda d: d.bad(
        d.good, {"device": d.draw(st.sampled_from(["gpu:0", "CPU", "Cuda:0", " cpu", "cpu "]), label="device")}
    ),
    "meta-device": lambda d: d.bad(d.good, {"device": "meta"}),
    "device-out-disagree": _device_out_disagree,
    "missing-cuda-index": _missing_cuda_index,
    "negative-device-index": lambda d: d.bad(
        d.good, {"device": d.draw(st.sampled_from([-1, np.int64(-1)]), label="index"), "out": d.out_for((d.n,))}
    ),
    "cpu-device-index": lambda d: d.bad(
        d.good, {"device": d.draw(st.sampled_from(["cpu:1", torch.device("cpu", 1)]), label="device")}
    ),
    "device-tensor-data": _device_tensor_data,
    "empty-complex-to-real": _empty_complex_to_real,
    "sparse-data": lambda d: _non_strided(d, "data"),
    "device-bool": _device_bool,
    "out-as-strided-overlap": _out_as_strided_overlap,
    "out-as-strided-overlap-3d": _out_as_strided_overlap_3d,
    "out-inference-tensor": _out_inference_tensor,
    "out-unsupported-dtype": _out_unsupported_dtype,
    "out-aliases-data": _out_aliases_data,
    "out-aliases-data-array": _out_aliases_data_array,
    "nested-tensor-data": _nested_tensor_data,
    "decimal-element": lambda d: _decimal_element(d),
    # the contract suite's mutation run: refusals no kind reached
    "unsupported-dtype": lambda d: d.bad(
        d.good, {"dtype": d.draw(st.sampled_from(UNSUPPORTED_DTYPES), label="dtype"), "device": d.device}
    ),
    "device-wrong-type": lambda d: d.bad(d.good, {"device": d.draw(st.sampled_from(_WRONG_DEVICES), label="device")}),
    # a dtype where device goes and a device where dtype goes: async_tensor_h2d([1], torch.int32, "cpu") by position
    "legacy-argument-order": lambda d: d.bad(d.good, {"device": torch.int32, "dtype": str(d.device)}),
    # a misspelt keyword (dtpye=): Python's own TypeError, never swallowed by a **kwargs
    "unknown-keyword": lambda d: d.bad(d.good, {"device": d.device, "dtpye": torch.int32}),
    "sparse-out": lambda d: _non_strided(d, "out"),
    "nested-out": _nested_out,
    "out-on-meta": _out_on_meta,
    "complex32-tensor-data": _complex32_tensor_data,
    "fraction-scalar": lambda d: d.bad(fractions.Fraction(1, 2), {"device": d.device}),
    "longdouble-array": _longdouble_array,
    "mixed-sign-huge-ints": lambda d: d.bad([-1, 2**63][: max(d.n, 2)] + [0] * max(0, d.n - 2), {"device": d.device}),
    "huge-int-among-floats": _huge_int_among_floats,
}


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
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise ValueError(f"unknown bad-input kind {kind!r}")
    return builder(_Drawn(draw, device, kind, raises, out_dtype, n, list(range(n))))


#: How :func:`bad_inputs_table` finds a kind's simplest case: derandomized, generated then shrunk, no database.
_SIMPLEST = settings(
    database=None,
    derandomize=True,
    max_examples=1,
    phases=(Phase.generate, Phase.shrink),
    suppress_health_check=list(HealthCheck),
)


#: Kinds whose drawn variants are each a hazard of their own (one row each in :func:`bad_inputs_table`): the label of
#: the draw that picks the variant, and every value it takes.
#: Where the Decimal stands in "decimal-element": every element, or after numbers a scan has already accepted (held-out
#: round r47 stopped its scan of object leaves at the first accepted number, so a later Decimal met another error).
_DECIMAL_PLACES = ("all", "after a float", "after an int")


def _decimal_element(d: _Drawn) -> Any:
    place = d.draw(st.sampled_from(_DECIMAL_PLACES), label="place")
    leads: dict[str, list[Any]] = {"all": [], "after a float": [0.5], "after an int": [1]}
    lead = leads[place]
    data = [*lead, *[decimal.Decimal("1.5")] * max(d.n - len(lead), 1)]
    return d.bad(data, {"out": d.out_for((len(data),), torch.float32)})


TABLE_VARIANTS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "out-requires-grad": ("variant", _GRAD_OUTS),
    "out-aliases-data": ("variant", _ALIAS_VARIANTS),
    "unsupported-dtype": ("dtype", UNSUPPORTED_DTYPES),
    "device-wrong-type": ("device", _WRONG_DEVICES),
    "dtype-not-a-dtype": ("dtype", _WRONG_DTYPES),
    "sparse-out": ("out layout", tuple(sorted(_NON_STRIDED))),
    "sparse-data": ("data layout", tuple(sorted(_NON_STRIDED))),
    "decimal-element": ("place", _DECIMAL_PLACES),
    "device-tensor-data": ("variant", _DEVICE_DATA_VARIANTS),
    "object-array": ("object array of", _OBJECT_ELEMENTS),
}


def _simplest(strategy: st.SearchStrategy[Any]) -> Any:
    return find(strategy, lambda _: True, settings=_SIMPLEST)


def _variant(device: torch.device, kind: str, chosen: str, value: Any) -> BadInput:
    """``kind``'s case with the draw labelled ``chosen`` answered ``value`` and every other draw its simplest value."""

    def draw(strategy: st.SearchStrategy[Any], label: object = None) -> Any:  # the builders pass label= by keyword
        return value if label == chosen else _simplest(strategy)

    # a stand-in for a composite strategy's draw (DrawFn is typing-only: a plain function has no __signature__ member)
    stand_in = cast("st.DrawFn", draw)
    return _BUILDERS[kind](_Drawn(stand_in, device, kind, BAD_INPUT_KINDS[kind], torch.int32, 1, [0]))


def bad_inputs_table(device: torch.device) -> list[BadInput]:
    """Every bad-input kind's simplest case (Hypothesis's ``find`` of :func:`bad_inputs` for that kind, derandomized
    and shrunk), and each variant of the kinds in :data:`TABLE_VARIANTS`: the same rows every run, so no kind or
    variant waits for a draw to reach it (a hunt over all kinds at once met one kind about five times in 300
    examples and left a mutant alive at one seed in six). About 0.5 s for its 118 rows on one CPU core (2026-12-03)."""
    rows = [_simplest(bad_inputs(device, kinds=(kind,))) for kind in sorted(BAD_INPUT_KINDS)]
    for kind, (label, values) in TABLE_VARIANTS.items():
        rows += [_variant(device, kind, label, value) for value in values]
    # ints past int64 in a list with no dtype and no out (the dtype inferred: held-out round r40 answered uint64 after
    # an earlier call had left state in the inference); the value kinds reach a dtype by dtype= or out= only
    kind = "uint64-beyond-int64"
    rows += [BadInput(kind, data, {"device": device}, BAD_INPUT_KINDS[kind]) for data in ([2**63], [[2**64 - 1]])]
    return rows
