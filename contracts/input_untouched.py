"""Contract ``input-untouched``: the caller's ``data`` and the storage around ``out`` are bit-identical after every call.

Holds the snapshots (:class:`InputGuard`), the check and the properties.

A call may only *read* ``data`` (a list and every list nested in it, a tuple, an
ndarray of any byte order or flags, a tensor and every byte of its storage) and may
only write ``out``'s own elements; a failing call writes nothing at all. Checked by a
bit-exact fingerprint taken before the call and compared after it (floats by their
bits, so NaN payloads and -0.0 count; arrays with their dtype including byte order,
strides and the writeable flag; tensors with dtype, shape, strides, offset and every
byte of their storage).
"""

from __future__ import annotations

import struct
from typing import Any, cast

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import has_bytes, raw_storage, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail
from h2d_contracts.strategies.describe import describe_value

from .values import SIZE_DTYPES

__all__ = [
    "InputGuard",
    "check_input_untouched",
    "fingerprint",
    "input_kind",
    "input_untouched_table",
    "out_bytes_outside",
]

_PLAIN_EXACT = frozenset({int, bool, str, bytes, type(None)})


def _pinned(t: torch.Tensor) -> bool:
    try:
        return t.is_pinned()
    except RuntimeError:
        return False


def _element_byte_mask(t: torch.Tensor, nbytes: int) -> torch.Tensor:
    """A bool mask over ``nbytes`` storage bytes: True where one of ``t``'s elements lies."""
    mask = torch.zeros(nbytes, dtype=torch.bool, device="cpu")
    if t.numel() == 0:
        return mask
    size = t.element_size()
    elements = torch.arange(nbytes // size, dtype=torch.int64, device="cpu").as_strided(
        tuple(t.shape), t.stride(), t.storage_offset()
    )
    starts = elements.reshape(-1) * size
    mask[(starts.unsqueeze(1) + torch.arange(size, device="cpu")).reshape(-1)] = True
    return mask


def _top_array(arr: np.ndarray) -> np.ndarray:
    base = arr
    while isinstance(base.base, np.ndarray):
        base = base.base
    return base


def fingerprint(obj: Any) -> Any:
    """A comparable, bit-exact description of ``obj`` and of all memory it can reach."""
    if isinstance(obj, torch.Tensor):
        if obj.is_nested:
            return ("nested tensor", str(obj.device), obj.dtype, tuple(fingerprint(c) for c in obj.unbind()))
        if obj.layout != torch.strided or obj.device.type == "meta":
            dense = obj.to_dense() if obj.layout != torch.strided and obj.device.type == "cpu" else None
            return (
                "tensor",
                str(obj.layout),
                str(obj.device),
                obj.dtype,
                tuple(obj.shape),
                None if dense is None else fingerprint(dense),
            )
        meta: tuple[Any, ...] = (
            obj.dtype,
            tuple(obj.shape),
            obj.stride(),
            obj.storage_offset(),
            str(obj.device),
            _pinned(obj),
            obj.requires_grad,
            obj.is_conj(),
            obj.is_neg(),
        )
        return ("tensor", meta, raw_storage(obj).numpy().tobytes())
    if isinstance(obj, np.ndarray):
        top = _top_array(obj)
        meta = (
            obj.dtype.str,
            obj.dtype.descr if obj.dtype.fields else None,
            obj.shape,
            obj.strides,
            obj.flags.writeable,
        )
        if obj.dtype.kind == "O":
            return ("ndarray", meta, tuple(fingerprint(v) for v in obj.ravel().tolist()))
        return ("ndarray", meta, top.tobytes(order="A"), obj.tobytes())
    if isinstance(obj, np.generic):
        return ("np.generic", obj.dtype.str, obj.tobytes())
    if isinstance(obj, (list, tuple)):
        kinds = set(map(type, obj))
        if kinds <= _PLAIN_EXACT:  # C-speed for the long flat lists of the size tables; types kept (True == 1)
            return (type(obj).__name__, len(obj), ("plain", tuple(map(type, obj)), tuple(obj)))
        if kinds == {float}:  # bit for bit: NaN payloads and -0.0 count
            return (type(obj).__name__, len(obj), ("floats", struct.pack(f"<{len(obj)}d", *obj)))
        return (type(obj).__name__, len(obj), tuple(fingerprint(v) for v in obj))
    if isinstance(obj, float):
        return ("float", struct.pack("<d", obj))
    if isinstance(obj, complex):
        return ("complex", struct.pack("<dd", obj.real, obj.imag))
    if isinstance(obj, (bool, int)):
        return (type(obj).__name__, obj)
    if isinstance(obj, (dict, set, frozenset)):
        return (type(obj).__name__, repr(obj))
    return (type(obj).__name__, id(obj) if not isinstance(obj, (str, bytes)) else obj)


def input_kind(obj: Any) -> str:
    """``data``'s kind in the field's terms: list / nested list / tuple / ndarray (dtype, flags) / tensor (dtype, pinned, view)."""
    if isinstance(obj, (list, tuple)):
        name = type(obj).__name__
        inner = [v for v in obj if isinstance(v, (list, tuple, np.ndarray, torch.Tensor))]
        if any(isinstance(v, (np.ndarray, torch.Tensor)) for v in inner):
            return f"{name} of arrays/tensors"
        return f"nested {name}" if inner else name
    if isinstance(obj, np.ndarray):
        notes = [f"dtype {obj.dtype.str}"]
        if not obj.flags.writeable:
            notes.append("read-only")
        if not obj.flags.c_contiguous:
            notes.append(f"strides {obj.strides}")
        return f"ndarray ({', '.join(notes)})"
    if isinstance(obj, torch.Tensor):
        notes = [str(obj.dtype)]
        if obj.layout == torch.strided and not obj.is_nested and obj.device.type == "cpu":
            notes.append("pinned" if _pinned(obj) else "pageable")
            if (
                not obj.is_contiguous()
                or obj.storage_offset()
                or obj.untyped_storage().nbytes() != obj.numel() * obj.element_size()
            ):
                notes.append(f"a view: strides {obj.stride()}, storage offset {obj.storage_offset()}")
        return f"tensor ({', '.join(notes)})"
    return type(obj).__name__


def _first_difference(before: Any, after: Any, path: str = "data") -> str:
    """Where two fingerprints first differ, as a Python path (``data[1][0]``, ``len(data[2])``, ``data.dtype``...)."""
    if before == after:
        return ""
    if before[0] in ("list", "tuple") and after[0] == before[0]:
        if before[1] != after[1]:
            return f"len({path}): {after[1]} instead of {before[1]}"
        if before[2][:1] in (("plain",), ("floats",)) or after[2][:1] in (("plain",), ("floats",)):
            return _first_flat_difference(before[2], after[2], path)
        for i, (b, a) in enumerate(zip(before[2], after[2])):
            where = _first_difference(b, a, f"{path}[{i}]")
            if where:
                return where
    if before[0] == "ndarray" and after[0] == "ndarray":
        names: tuple[str, ...] = ("dtype", "fields", "shape", "strides", "flags.writeable")
        for name, b, a in zip(names, before[1], after[1]):
            if b != a:
                return f"{path}.{name}: {a!r} instead of {b!r}"
        return f"{path}: bytes of its memory changed"
    if before[0] == "tensor" and after[0] == "tensor" and len(before) == 3:
        names = (
            "dtype",
            "shape",
            "stride()",
            "storage_offset()",
            "device",
            "is_pinned()",
            "requires_grad",
            "is_conj()",
            "is_neg()",
        )
        for name, b, a in zip(names, before[1], after[1]):
            if b != a:
                return f"{path}.{name}: {a!r} instead of {b!r}"
        changed = sum(x != y for x, y in zip(before[2], after[2]))
        return f"{path}: {changed} byte(s) of its storage changed"
    return f"{path}: changed"


def _first_flat_difference(before: tuple[Any, ...], after: tuple[Any, ...], path: str) -> str:
    """Where two flat-list fingerprints (``("plain", types, values)`` / ``("floats", bits)``) first differ."""

    def items(fp: tuple[Any, ...]) -> list[tuple[Any, Any]]:
        if fp[0] == "plain":
            return list(zip(fp[1], fp[2]))
        if fp[0] == "floats":
            return [(float, bits) for bits in struct.iter_unpack("<Q", fp[1])]
        return [(type(v), v) for v in fp]

    for i, (b, a) in enumerate(zip(items(before), items(after))):
        if b != a:
            return f"{path}[{i}]: changed"
    return f"{path}: changed"


def out_bytes_outside(out: torch.Tensor, before: torch.Tensor, after: torch.Tensor) -> int:
    """How many bytes of ``out``'s storage outside ``out``'s own elements differ between two raw snapshots."""
    mask = _element_byte_mask(out, before.numel())
    return int(((before != after) & ~mask).sum())


class InputGuard:
    """Snapshot the caller's ``data`` and ``out``'s storage before a call; :meth:`verify` after it.

    ``verify(contract, valid=...)``: after a valid call, ``data`` must be bit-identical and
    only ``out``'s own elements may have changed in its storage; after a failing call,
    ``out``'s storage must be entirely unchanged too.
    """

    def __init__(self, data: Any, kwargs: dict[str, Any]) -> None:
        self.data = data
        self.kind = input_kind(data)
        self.before = fingerprint(data)
        self.shown_before = self._shown(data)
        out = kwargs.get("out")
        self.out = out if has_bytes(out) else None
        self.out_before = raw_storage(self.out) if self.out is not None else None

    @staticmethod
    def _shown(obj: Any) -> str:
        try:
            text = describe_value(obj)
        except Exception:  # noqa: BLE001 - generators and the like: by their type only
            text = f"<{type(obj).__name__}>"
        return text if len(text) <= 300 else text[:297] + "..."

    def data_changed(self, valid: bool) -> str:
        """'' if ``data`` is untouched, else where it changed (out's own elements excused after a valid call)."""
        after = fingerprint(self.data)
        if after == self.before:
            return ""
        if (
            valid
            and self.out is not None
            and isinstance(self.data, torch.Tensor)
            and self.before[0] == "tensor"
            and len(self.before) == 3
        ):
            # data and out are disjoint parts of one storage (b[:4] into b[4:]): out's elements may change.
            if (
                self.data.untyped_storage().data_ptr() == self.out.untyped_storage().data_ptr()
                and self.before[1] == after[1]
            ):
                b = (
                    torch.frombuffer(bytearray(self.before[2]), dtype=torch.uint8)
                    if self.before[2]
                    else torch.zeros(0, dtype=torch.uint8)
                )
                a = (
                    torch.frombuffer(bytearray(after[2]), dtype=torch.uint8)
                    if after[2]
                    else torch.zeros(0, dtype=torch.uint8)
                )
                if out_bytes_outside(self.out, b, a) == 0:
                    return ""
        return _first_difference(self.before, after)

    def verify(self, contract: str, *, valid: bool, call: str) -> None:
        """Raise ContractViolation(``contract``) if ``data`` or ``out``'s surroundings changed."""
        __tracebackhide__ = True
        outcome = "a valid call" if valid else "a failing call"
        where = self.data_changed(valid)
        if where:
            fail(
                contract,
                f"the caller's {self.kind} was changed by {outcome} ({where})",
                got=self._shown(self.data),
                expected=f"untouched: {self.shown_before}",
                call=call,
            )
        if self.out is not None:
            after = raw_storage(self.out)
            out_before = cast(torch.Tensor, self.out_before)  # taken in __init__ whenever out is set
            if valid:
                changed = out_bytes_outside(self.out, out_before, after)
                what = "bytes of out's storage outside out's own elements"
            else:
                changed = int((out_before != after).sum())
                what = "bytes of out's storage"
            if changed:
                fail(contract, f"{outcome} changed {changed} {what}", got="written", expected="untouched", call=call)


@check("input-untouched")
def check_input_untouched(
    target: Target,
    data: Any,
    kwargs: dict[str, Any],
    *,
    raises: type[BaseException] | None = None,
) -> None:
    """input-untouched: ``data`` (list and every nested list, tuple, ndarray, tensor) is bit-identical after the call,
    and only ``out``'s own elements were written (nothing at all when the call failed).

    ``raises``: None for a valid call, else the exception type the failing call should
    raise. Whether the call succeeds or which exception it raises is the business of
    the values / bad-input contracts; here only the inputs matter: a call that returned
    is judged as a valid call (only ``out``'s own elements may change), one that raised
    as a failing call (nothing may change).
    """
    del raises  # documents the caller's intent; the outcome decides what may change
    call = target.describe_call(data, kwargs)
    guard = InputGuard(data, kwargs)
    try:
        target.call(data, kwargs)
    except Exception:  # noqa: BLE001 - see above
        failed = True
    else:
        failed = False
    synchronize()
    guard.verify("input-untouched", valid=not failed, call=call)


@prop("input-untouched")
def prop_input_untouched(target: Target, device: torch.device, **overrides: Any) -> None:
    """input-untouched: after any valid call (every kind, layout, route) or failing call (every bad-input kind) data and out's surroundings are unchanged."""
    require_device(target, device, "input-untouched")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="failing call"):
            bad = data.draw(hs.bad_inputs(device), label="bad input")
            if (bad.kwargs.get("out") is not None and "out" not in target.capabilities) or not in_domain(
                target, bad.data, bad.kwargs
            ):
                return
            check_input_untouched(target, bad.data, bad.kwargs, raises=bad.raises)
        else:
            call = data.draw(
                hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=want_out), label="call"
            )
            check_input_untouched(target, call.data, call.kwargs)

    run_given(body, overrides)


def input_untouched_table(
    device: torch.device, *, with_out: bool = True
) -> list[tuple[str, Any, dict[str, Any], type[BaseException] | None]]:
    """The deterministic input-untouched table: (label, data, kwargs, raises or None), rebuilt fresh per call.

    Every input kind (flat / nested lists, tuples, lists of arrays, byte-swapped and
    read-only ndarrays, tensors and their views, pinned where pinning exists) through
    every route (``device=``, ``dtype=`` with a conversion, ``out=``), valid and failing
    (wrong out shape, dtype disagreeing with out, a value the target dtype cannot hold).
    The list lengths straddle the multiples of 8 and 64 an in-place padding would target.
    """
    rows: list[tuple[str, Any, dict[str, Any], type[BaseException] | None]] = []
    pinned = hs.pinning_available()
    for label, data in _table_sources(pinned):
        rows += _table_rows(label, data, device, with_out)
    if with_out:
        rows += _out_side_rows(device)
    return rows


_Row = tuple[str, Any, dict[str, Any], type[BaseException] | None]


def _table_out(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """An ``out`` of ``shape`` and ``dtype`` inside a larger tensor filled with 77."""
    base = torch.full((int(np.prod(shape, dtype=np.int64)) + 2,), 77, dtype=dtype, device=device)
    return base[1:-1].view(shape)  # storage on both sides: a write past out's elements shows


def _table_sources(pinned: bool) -> list[tuple[str, Any]]:
    """The table's inputs, labelled: lists of lengths around multiples of 8 and 64, tuples, byte-swapped and read-only
    arrays, tensors and their views (pinned ones where ``pinned``)."""
    t2 = torch.arange(12, dtype=torch.int32).view(3, 4)
    store = torch.arange(20, dtype=torch.int64)
    items: list[tuple[str, Any]] = []
    for n in (1, 3, 7, 8, 9, 65):
        items.append((f"int list [{n}]", list(range(1, n + 1))))
    items += [
        ("float list", [1.5, -0.0, float("nan"), 2.0]),
        ("bool list", [True, False, True]),
        ("nested list", [[1, 2, 3], [4, 5, 6]]),
        ("tuple", (1, 2, 3)),
        ("mixed list/tuple", [(1, 2), [3, 4]]),
        (">i4 array", np.arange(1, 6, dtype=">i4")),
        (">f8 array", np.array([1.5, -2.25, 3.0], dtype=">f8")),
        # native float arrays and tensors with fractions, converted to ints (a range check that truncates with
        # numpy's out= on an astype(copy=False) "copy" truncates the caller's array: held-out round r40)
        ("float64 array", np.array([1.5, -2.7, 3.0])),
        ("float32 array", np.array([1.5, -2.7], dtype=np.float32)),
        ("float64 tensor", torch.tensor([1.5, -2.7, 3.0], dtype=torch.float64)),
        (">i4 2-D fortran array", np.asfortranarray(np.arange(1, 7, dtype=">i4").reshape(2, 3))),
        ("read-only >i2 array", read_only(np.arange(1, 5, dtype=">i2"))),
        ("read-only int32 array", read_only(np.arange(1, 5, dtype=np.int32))),
        ("reversed array", np.arange(1, 6, dtype=np.int64)[::-1]),
        ("int32 tensor", torch.arange(1, 6, dtype=torch.int32)),
        ("transposed tensor view", t2.t()),
        ("offset tensor view", store[5:9]),
    ]
    if pinned:
        items.append(("pinned tensor", torch.arange(1, 6, dtype=torch.int64).pin_memory()))
        items.append(("pinned column view", torch.arange(12, dtype=torch.int32).pin_memory().view(6, 2)[:, 0]))
    return items


def _table_rows(label: str, data: Any, device: torch.device, with_out: bool) -> list[_Row]:
    """The rows of one input: ``device=``, ``dtype=`` with a conversion, ``out=``, and the failing calls of each."""
    rows: list[_Row] = []
    shape = tuple(data.shape) if isinstance(data, (np.ndarray, torch.Tensor)) else tuple(np.shape(np.asarray(data)))
    floaty = isinstance(data, list) and isinstance(data[0], float)
    rows.append((f"{label} -> device", data, {"device": device}, None))
    rows.append((f"{label} -> dtype=float64", fresh_copy(data), {"device": device, "dtype": torch.float64}, None))
    if not floaty:
        rows.append((f"{label} -> dtype=int64", fresh_copy(data), {"device": device, "dtype": torch.int64}, None))
    if with_out:
        rows.append(
            (f"{label} -> float32 out", fresh_copy(data), {"out": _table_out(shape, torch.float32, device)}, None)
        )
        rows.append(
            (
                f"{label} -> out of a wrong shape",
                fresh_copy(data),
                {"out": _table_out((*shape, 2), torch.float32, device)},
                ValueError,
            )
        )
        rows.append(
            (
                f"{label} -> dtype disagreeing with out",
                fresh_copy(data),
                {"dtype": torch.float64, "out": _table_out(shape, torch.float32, device)},
                TypeError,
            )
        )
    big = None if floaty else with_first(fresh_copy(data), 2**14)
    if big is not None:
        rows.append(
            (f"{label} -> dtype=int8, value too large", big, {"device": device, "dtype": torch.int8}, ValueError)
        )
    return rows


def _out_side_rows(device: torch.device) -> list[_Row]:
    """Failing calls on ``out``'s side: an inference-mode out, an out overlapping the data (a tensor, an ndarray view)."""
    rows: list[_Row] = []
    # Failing calls on out's side: out made under inference mode (torch's copy_ writes
    # first, then raises), out overlapping the data's bytes.
    with torch.inference_mode():
        inference_out = _table_out((3,), torch.int32, device)
    rows.append(("int list -> inference-mode out", [1, 2, 3], {"out": inference_out}, ValueError))
    shared = torch.arange(8, dtype=torch.float32)
    rows.append(("tensor -> out overlapping it", shared[:4], {"out": shared[2:6]}, ValueError))
    # data an ndarray view of out's own host memory (vLLM 0.33.0 writes through it, seen
    # on an H200); a row, not only a draw of the property, so every run checks it
    viewed = torch.arange(8, dtype=torch.float32)
    rows.append(("ndarray view -> out overlapping it", viewed.numpy()[:7], {"out": viewed[1:]}, ValueError))
    return rows


def read_only(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def fresh_copy(data: Any) -> Any:
    """An independent copy of ``data`` with the same kind, dtype (byte order), layout and flags."""
    import copy as _copy

    if isinstance(data, torch.Tensor):  # the same storage size, offset and strides, pinned-ness kept
        storage = data.untyped_storage()
        raw = torch.empty(storage.nbytes(), dtype=torch.uint8, pin_memory=data.is_pinned())
        raw.copy_(torch.empty(0, dtype=torch.uint8).set_(storage))
        return torch.empty(0, dtype=data.dtype).set_(
            raw.untyped_storage(), data.storage_offset(), data.size(), data.stride()
        )
    if isinstance(data, np.ndarray):
        copy_ = np.array(data, copy=True, order="K", dtype=data.dtype)
        if not data.flags.writeable:
            copy_.setflags(write=False)
        return copy_
    return _copy.deepcopy(data)


def with_first(data: Any, value: int) -> Any:
    """``data`` (a fresh copy) with its first element set to ``value``; None where that is impossible (tuples)."""
    if isinstance(data, torch.Tensor):
        data[(0,) * data.dim()] = value
        return data
    if isinstance(data, np.ndarray):
        was = data.flags.writeable
        data.setflags(write=True)
        data[(0,) * data.ndim] = value
        data.setflags(write=was)
        return data
    first = data
    while isinstance(first[0], (list, tuple)):
        first = first[0]
    if not isinstance(first, list):
        return None
    first[0] = value
    return data


@prop("input-untouched")
def prop_input_untouched_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """input-untouched: a deterministic table of every input kind through every route, valid and failing (see :func:`input_untouched_table`)."""
    require_device(target, device, "input-untouched")
    del overrides  # deterministic: every row every run
    rows = Rows("input-untouched table")
    for _label, data, kwargs, raises in input_untouched_table(device, with_out="out" in target.capabilities):
        rows.row(check_input_untouched, target, data, kwargs, raises=raises)
    rows.finish()


@prop("input-untouched", table=True, ladder=True)
def prop_input_untouched_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """input-untouched: data of 1 to 2**20 elements (one rung an octave) is bit-identical after a valid call (a table).

    ndarrays and tensors to 2**20 elements (contiguous, a dense transposed view, every other
    element of a wider one), lists to 2**16; through ``device=`` and, where the target has
    it, ``out=``. A conversion done in place in the caller's memory above some size (a
    "scratch" reuse of the input) passes every small test.
    """
    require_device(target, device, "input-untouched")
    sparse = overrides.pop("ladder", "full") == "sparse"
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray", "tensor"], "input-untouched")
    rows = Rows("input-untouched size ladder")
    for k, kind in enumerate(kinds):
        for n in hs.ladder(rotation=k + 1, top=16 if kind == "list" else hs.MAX_EXPONENT, sparse=sparse):
            dtype = SIZE_DTYPES[n % len(SIZE_DTYPES)]
            if kind == "ndarray" and dtype not in hs.NUMPY_OF:
                dtype = torch.float32
            for layout in ("contiguous", "transposed", "strided") if kind != "list" else ("contiguous",):
                wide = hs.bulk_values(2 * n, dtype, offset=n)
                source = (
                    wide[::2]
                    if layout == "strided"
                    else wide[:n].reshape(3, n // 3).t()
                    if layout == "transposed" and n % 3 == 0
                    else wide[:n]
                )
                data: Any = source.tolist() if kind == "list" else source.numpy() if kind == "ndarray" else source
                kwargs: dict[str, Any] = {"device": device}
                if "dtype" in target.requires:
                    kwargs["dtype"] = dtype
                if "out" in target.capabilities and n % 2:
                    kwargs = {"out": torch.zeros(tuple(source.shape), dtype=dtype, device=device)}
                rows.row(check_input_untouched, target, data, kwargs)
    rows.finish()
