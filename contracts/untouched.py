"""Contract ``input-untouched``: the caller's ``data`` and the storage around ``out`` are bit-identical after every call.

A call may only *read* ``data`` (a list and every list nested in it, a tuple, an
ndarray of any byte order or flags, a tensor and every byte of its storage) and may
only write ``out``'s own elements; a failing call writes nothing at all. Checked by a
bit-exact fingerprint taken before the call and compared after it (floats by their
bits, so NaN payloads and -0.0 count; arrays with their dtype including byte order,
strides and the writeable flag; tensors with dtype, shape, strides, offset and every
byte of their storage).
"""

from __future__ import annotations

import copy
import struct
from typing import Any

import numpy as np
import torch

from ._report import fail, repro_value

__all__ = ["InputGuard", "fingerprint", "input_kind", "out_bytes_outside"]


def _pinned(t: torch.Tensor) -> bool:
    try:
        return t.is_pinned()
    except RuntimeError:
        return False


def _storage_bytes(t: torch.Tensor) -> torch.Tensor:
    from .h2d import raw_storage  # local: h2d imports this module

    return raw_storage(t)


def _element_byte_mask(t: torch.Tensor, nbytes: int) -> torch.Tensor:
    """A bool mask over ``nbytes`` storage bytes: True where one of ``t``'s elements lies."""
    mask = torch.zeros(nbytes, dtype=torch.bool)
    if t.numel() == 0:
        return mask
    size = t.element_size()
    elements = torch.arange(nbytes // size, dtype=torch.int64).as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    starts = elements.reshape(-1) * size
    mask[(starts.unsqueeze(1) + torch.arange(size)).reshape(-1)] = True
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
            return ("tensor", str(obj.layout), str(obj.device), obj.dtype, tuple(obj.shape), None if dense is None else fingerprint(dense))
        meta = (obj.dtype, tuple(obj.shape), obj.stride(), obj.storage_offset(), str(obj.device), _pinned(obj), obj.requires_grad, obj.is_conj(), obj.is_neg())
        return ("tensor", meta, _storage_bytes(obj).numpy().tobytes())
    if isinstance(obj, np.ndarray):
        top = _top_array(obj)
        meta = (obj.dtype.str, obj.dtype.descr if obj.dtype.fields else None, obj.shape, obj.strides, obj.flags.writeable)
        if obj.dtype.kind == "O":
            return ("ndarray", meta, tuple(fingerprint(v) for v in obj.ravel().tolist()))
        return ("ndarray", meta, top.tobytes(order="A"), obj.tobytes())
    if isinstance(obj, np.generic):
        return ("np.generic", obj.dtype.str, obj.tobytes())
    if isinstance(obj, (list, tuple)):
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
            if not obj.is_contiguous() or obj.storage_offset() or obj.untyped_storage().nbytes() != obj.numel() * obj.element_size():
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
        for i, (b, a) in enumerate(zip(before[2], after[2])):
            where = _first_difference(b, a, f"{path}[{i}]")
            if where:
                return where
    if before[0] == "ndarray" and after[0] == "ndarray":
        names = ("dtype", "fields", "shape", "strides", "flags.writeable")
        for name, b, a in zip(names, before[1], after[1]):
            if b != a:
                return f"{path}.{name}: {a!r} instead of {b!r}"
        return f"{path}: bytes of its memory changed"
    if before[0] == "tensor" and after[0] == "tensor" and len(before) == 3:
        names = ("dtype", "shape", "stride()", "storage_offset()", "device", "is_pinned()", "requires_grad", "is_conj()", "is_neg()")
        for name, b, a in zip(names, before[1], after[1]):
            if b != a:
                return f"{path}.{name}: {a!r} instead of {b!r}"
        changed = sum(x != y for x, y in zip(before[2], after[2]))
        return f"{path}: {changed} byte(s) of its storage changed"
    return f"{path}: changed"


def out_bytes_outside(out: torch.Tensor, before: torch.Tensor, after: torch.Tensor) -> int:
    """How many bytes of ``out``'s storage outside ``out``'s own elements differ between two raw snapshots."""
    mask = _element_byte_mask(out, before.numel())
    return int(((before != after) & ~mask).sum())


def has_bytes(t: Any) -> bool:
    """Whether ``t`` is a tensor whose bytes can be read and compared: strided, not nested, not on ``meta`` (bad ``out`` kinds are all three)."""
    return isinstance(t, torch.Tensor) and t.layout == torch.strided and not t.is_nested and t.device.type != "meta"


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
        try:
            self.copy = data.clone() if isinstance(data, torch.Tensor) else copy.deepcopy(data)
        except Exception:  # noqa: BLE001 - generators and the like: shown by their repr only
            self.copy = None
        out = kwargs.get("out")
        self.out = out if has_bytes(out) else None
        self.out_before = _storage_bytes(self.out) if self.out is not None else None

    def _shown(self, obj: Any) -> str:
        text = repro_value(obj)
        return text if len(text) <= 300 else text[:297] + "..."

    def data_changed(self, valid: bool) -> str:
        """'' if ``data`` is untouched, else where it changed (out's own elements excused after a valid call)."""
        after = fingerprint(self.data)
        if after == self.before:
            return ""
        if valid and self.out is not None and isinstance(self.data, torch.Tensor) and self.before[0] == "tensor" and len(self.before) == 3:
            # data and out are disjoint parts of one storage (b[:4] into b[4:]): out's elements may change.
            if self.data.untyped_storage().data_ptr() == self.out.untyped_storage().data_ptr() and self.before[1] == after[1]:
                b = torch.frombuffer(bytearray(self.before[2]), dtype=torch.uint8) if self.before[2] else torch.zeros(0, dtype=torch.uint8)
                a = torch.frombuffer(bytearray(after[2]), dtype=torch.uint8) if after[2] else torch.zeros(0, dtype=torch.uint8)
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
                expected=f"untouched: {self._shown(self.copy) if self.copy is not None else 'as before'}",
                call=call,
            )
        if self.out is not None:
            after = _storage_bytes(self.out)
            if valid:
                changed = out_bytes_outside(self.out, self.out_before, after)
                what = "bytes of out's storage outside out's own elements"
            else:
                changed = int((self.out_before != after).sum())
                what = "bytes of out's storage"
            if changed:
                fail(contract, f"{outcome} changed {changed} {what}", got="written", expected="untouched", call=call)
