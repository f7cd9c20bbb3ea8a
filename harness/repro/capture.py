"""Capture: a check's arguments as they were when it started (memory regions, views, flags, global state)."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch

from .. import contexts

#: Memory of at most this many bytes (compressed, before base64) is embedded in a script;
#: larger inputs that no short constructor rebuilds make the script "not reproducible".
MAX_EMBEDDED_BYTES = 1 << 20
#: Lists of Python scalars with more leaves than this are rebuilt by a verified constructor or from a pickle.
_LITERAL_LEAVES = 1024


def _byte_bounds(arr: np.ndarray) -> tuple[int, int]:
    bounds = np.byte_bounds if hasattr(np, "byte_bounds") else np.lib.array_utils.byte_bounds  # numpy 1 / 2
    lo, hi = bounds(arr)
    return int(lo), int(hi)


def _top_ndarray(arr: np.ndarray) -> np.ndarray:
    base = arr
    while isinstance(base.base, np.ndarray):
        base = base.base
    return base


def _pinned(t: torch.Tensor) -> bool:
    try:
        return bool(t.is_pinned())
    except RuntimeError:
        return False


# --------------------------------------------------------------------------- capture


@dataclass
class _Region:
    """A block of memory that captured tensors and arrays view: its bytes as they were at capture."""

    start: int
    nbytes: int
    device: str = "cpu"
    pinned: bool = False
    inference: bool = False
    tensors: int = 0  # how many captured tensors view it (arrays over it then view the tensor's memory)
    data: Any = None  # bytes (host) or a uint8 device tensor (a device clone, copied to the host only for a script)


@dataclass
class Captured:
    """A check's arguments as they were when it started, and the global state that changes what a call does.

    Build with :func:`capture`; :func:`~harness.repro.script.write_script` writes the reproduction.
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    regions: list[_Region]
    state: dict[str, Any]
    problems: list[str] = field(default_factory=list)


class _Node:
    """One captured value: ``kind`` and what rebuilds it."""

    __slots__ = ("kind", "info", "children")

    def __init__(self, kind: str, info: Any = None, children: list[Any] | None = None) -> None:
        self.kind = kind
        self.info = info
        self.children = children or []


_PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes})


def _is_plain_scalar(v: Any) -> bool:
    return type(v) in _PLAIN


def _plain_copy(obj: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...] | None:
    """A copy of a (nested) list or tuple holding only plain Python scalars, else None (``map(type)``: C speed)."""
    kinds = set(map(type, obj))
    if kinds <= _PLAIN:
        return list(obj) if isinstance(obj, list) else tuple(obj)
    if not kinds <= (_PLAIN | {list, tuple}):
        return None
    out = []
    for v in obj:
        if type(v) in (list, tuple):
            inner = _plain_copy(v)
            if inner is None:
                return None
            out.append(inner)
        else:
            out.append(v)
    return out if isinstance(obj, list) else tuple(out)


class _Capturer:
    def __init__(self) -> None:
        self.ranges: list[
            tuple[int, int, str, bool, bool, bool]
        ] = []  # start, end, device, pinned, inference, is_tensor
        self.device_storages: dict[tuple[str, int], torch.Tensor] = {}
        self.problems: list[str] = []

    # pass 1: where memory lies
    def scan(self, obj: Any, depth: int = 0) -> None:
        if depth > 64:
            return
        if isinstance(obj, torch.Tensor):
            self._scan_tensor(obj)
        elif isinstance(obj, np.ndarray):
            if obj.dtype.kind == "O":
                for v in obj.ravel().tolist():
                    self.scan(v, depth + 1)
            elif obj.size:
                top = _top_ndarray(obj)
                lo, hi = _byte_bounds(top) if top.size else _byte_bounds(obj)
                lo2, hi2 = _byte_bounds(obj)
                self.ranges.append((min(lo, lo2), max(hi, hi2), "cpu", False, False, False))
        elif isinstance(obj, (list, tuple)):
            if set(map(type, obj)) <= _PLAIN:
                return
            for v in obj:
                self.scan(v, depth + 1)
        elif isinstance(obj, dict):
            for k, v in obj.items():
                self.scan(k, depth + 1)
                self.scan(v, depth + 1)

    def _scan_tensor(self, t: torch.Tensor) -> None:
        if t.is_nested:
            for c in t.unbind():
                self._scan_tensor(c)
            return
        if t.layout != torch.strided or t.device.type == "meta" or t.is_quantized:
            return
        storage = t.untyped_storage()
        if storage.nbytes() == 0:
            return
        if t.device.type == "cpu":
            start = storage.data_ptr()
            self.ranges.append((start, start + storage.nbytes(), "cpu", _pinned(t), t.is_inference(), True))
        else:
            key = (str(t.device), storage.data_ptr())
            if key not in self.device_storages:
                self.device_storages[key] = (
                    torch.empty(0, dtype=torch.uint8, device=t.device).set_(storage).clone()
                )  # async, on the device

    def regions(self) -> list[_Region]:
        merged: list[_Region] = []
        for start, end, dev, pinned, inference, is_tensor in sorted(self.ranges):
            if merged and start < merged[-1].start + merged[-1].nbytes:
                last = merged[-1]
                last.nbytes = max(last.nbytes, end - last.start)
                last.pinned |= pinned
                last.inference |= inference
                last.tensors += is_tensor
            else:
                merged.append(_Region(start, end - start, dev, pinned, inference, int(is_tensor)))
        for r in merged:
            r.data = ctypes.string_at(r.start, r.nbytes)
        for (dev, ptr), clone in self.device_storages.items():
            merged.append(_Region(ptr, clone.numel(), dev, False, False, 1, clone))
        return merged

    # pass 2: the value graph, memory as (region index, byte offset)
    def node(self, obj: Any, regions: list[_Region], depth: int = 0) -> _Node:
        if depth > 64:
            self.problems.append("a value nested more than 64 levels deep")
            return _Node("opaque", "<deeply nested>")
        if isinstance(obj, torch.Tensor):
            return self._tensor_node(obj, regions)
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind == "O":
                return _Node("objarray", obj.shape, [self.node(v, regions, depth + 1) for v in obj.ravel().tolist()])
            if obj.size == 0:
                return _Node("emptyarray", (obj.dtype, obj.shape))
            lo, _ = _byte_bounds(obj)
            index, region = _find(regions, "cpu", lo)
            # np.ndarray(buffer=..., offset=...) takes the offset of the array's first element in memory order
            first = obj.__array_interface__["data"][0]
            return _Node(
                "ndarray", (index, first - region.start, obj.dtype, obj.shape, obj.strides, bool(obj.flags.writeable))
            )
        if isinstance(obj, np.generic):
            return _Node("npscalar", (obj.dtype, obj.tobytes()))
        if type(obj) in (list, tuple):
            plain = _plain_copy(obj)
            if plain is not None:
                return _Node("plainlist", plain)
        if isinstance(obj, list):
            return _Node("list", None, [self.node(v, regions, depth + 1) for v in obj])
        if isinstance(obj, tuple):
            return _Node("tuple", None, [self.node(v, regions, depth + 1) for v in obj])
        if isinstance(obj, dict):
            return _Node(
                "dict",
                None,
                [(self.node(k, regions, depth + 1), self.node(v, regions, depth + 1)) for k, v in obj.items()],
            )
        if isinstance(obj, (set, frozenset)):
            return _Node(type(obj).__name__, None, [self.node(v, regions, depth + 1) for v in obj])
        if _is_plain_scalar(obj) or isinstance(obj, (torch.dtype, torch.device, np.dtype)) or obj is Ellipsis:
            return _Node("py", obj)
        if isinstance(obj, type) and issubclass(obj, np.generic):
            return _Node("nptype", obj.__name__)
        if isinstance(obj, type) and "<locals>" not in obj.__qualname__:
            return _Node("class", (obj.__module__, obj.__qualname__))
        name = type(obj).__module__ + "." + type(obj).__qualname__
        if name in ("decimal.Decimal", "fractions.Fraction"):
            return _Node("py", obj)
        if name == "builtins.generator":
            self.problems.append(
                "a generator is rebuilt as a generator of 0, 1, 2 (its items were not read: that would consume it)"
            )
            return _Node("generator")
        if name == "builtins.object":
            return _Node("object")
        self.problems.append(f"a {name} has no rebuild; its repr stands in")
        return _Node("opaque", repr(obj))

    def _tensor_node(self, t: torch.Tensor, regions: list[_Region]) -> _Node:
        if t.is_nested:
            return _Node("nested", (t.dtype, str(t.device)), [self._tensor_node(c, regions) for c in t.unbind()])
        if t.device.type == "meta":
            return _Node("meta", (t.dtype, tuple(t.shape), tuple(t.stride()) if t.layout == torch.strided else None))
        if t.is_quantized:
            if t.qscheme() != torch.per_tensor_affine:
                self.problems.append(f"a quantized tensor of scheme {t.qscheme()} is rebuilt per tensor")
            return _Node("quantized", (t.dtype, t.q_scale(), t.q_zero_point()), [_literal_tensor(t.int_repr())])
        if t.layout != torch.strided:
            dense = self._dense_copy(t)
            return _Node("sparse", str(t.layout), [_literal_tensor(dense)] if dense is not None else [])
        storage = t.untyped_storage()
        info = {
            "dtype": t.dtype,
            "shape": tuple(t.shape),
            "stride": tuple(t.stride()),
            "offset": t.storage_offset(),
            "device": t.device,
            "requires_grad": t.requires_grad,
            "leaf": t.is_leaf,
            "conj": t.is_conj(),
            "neg": t.is_neg(),  # the bit over the same storage: rebuilt by torch._neg_view (resolving it made memory
            # of its own, which no captured region holds)
            "inference": t.is_inference(),
            "pinned": t.device.type == "cpu" and _pinned(t),
        }
        if storage.nbytes() == 0:
            return _Node("emptytensor", info)
        if t.device.type == "cpu":
            index, region = _find(regions, "cpu", storage.data_ptr())
            info["region"], info["byte_offset"] = index, storage.data_ptr() - region.start
        else:
            index, _ = _find(regions, str(t.device), storage.data_ptr())
            info["region"], info["byte_offset"] = index, 0
        info["storage_nbytes"] = storage.nbytes()
        return _Node("tensor", info)

    @staticmethod
    def _dense_copy(t: torch.Tensor) -> torch.Tensor | None:
        try:
            return t.to_dense()
        except Exception:  # noqa: BLE001 - a layout without to_dense: reported as not rebuilt
            return None


def _leaves(value: Any, limit: int) -> int:
    """Leaves of a nested list/tuple; counting stops past ``limit``."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        if type(item) in (list, tuple):
            if len(item) > limit:
                return limit + 1
            stack.extend(item)
        else:
            count += 1
    return count


def _same_plain(a: Any, b: Any) -> bool:
    """Equal, with the same container and leaf types all the way down (``1 == 1.0 == True`` is not enough); NaN == NaN."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(map(_same_plain, a, b))
    if isinstance(a, float) and a != a:
        return cast(bool, b != b)  # b is a float too (same type as a)
    return bool(a == b)


def _literal_tensor(t: torch.Tensor) -> _Node:
    """A tensor derived during capture (a quantized tensor's integers, a sparse tensor's dense form): its values as bytes."""
    host = t.detach().cpu().contiguous()
    return _Node(
        "literal", (host.dtype, tuple(host.shape), host.view(torch.uint8).numpy().tobytes() if host.numel() else b"")
    )


def _find(regions: list[_Region], device: str, address: int) -> tuple[int, _Region]:
    for i, r in enumerate(regions):
        if r.device == device and r.start <= address < r.start + max(r.nbytes, 1):
            return i, r
    raise LookupError(f"no captured region holds {device} address {address:#x}")


def capture(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Captured:
    """Snapshot a check's arguments (everything after the target) and the global torch state that changes a call.

    Host memory is copied as bytes; device memory is cloned on the device (no host
    synchronisation) and copied to the host only if a script is written.
    """
    cap = _Capturer()
    for value in (*args, *kwargs.values()):
        cap.scan(value)
    regions = cap.regions()
    nodes = tuple(cap.node(a, regions) for a in args)
    knodes = {k: cap.node(v, regions) for k, v in kwargs.items()}
    state: dict[str, Any] = {
        "default_dtype": torch.get_default_dtype(),
        "inference": torch.is_inference_mode_enabled(),
        "grad": torch.is_grad_enabled(),
        "cwd": os.getcwd(),
        "context": contexts.ambient(),
    }
    get_default_device = getattr(torch, "get_default_device", None)
    if get_default_device is not None:
        state["default_device"] = get_default_device()
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda_device"] = torch.cuda.current_device()
        stream = torch.cuda.current_stream()
        state["side_stream"] = stream != torch.cuda.default_stream()
    return Captured(nodes, knodes, regions, state, cap.problems)
