"""Reproductions: capture a check's arguments when it starts, write them back as a self-contained script.

Every check (:func:`harness.checks.check`) snapshots its arguments on entry
(:func:`capture`): tensors and arrays as the bytes of the memory they view, with their
dtype, shape, strides and offset, so that views, storage offsets, memory shared between
``data`` and ``out``, pinned memory, inference-mode and ``requires_grad`` tensors, byte
order, read-only and broadcast arrays, lists of arrays and 0-d values are all rebuilt as
they were, whatever the call did to them afterwards. When the check raises a
:class:`~harness.violations.ContractViolation`, :meth:`Captured.script` writes a Python
script that loads the target by its ``--h2d-impl`` spec, rebuilds every argument with
statements (never a comment) and calls the same check, so it ends in the contract's own
assertion. :func:`verify` runs such a script in a fresh interpreter, against the target
(it must fail the same way) and against the reference (it must pass).

Large inputs are rebuilt by a short verified constructor (an ``arange`` progression or a
repeated pattern: :func:`strategies.describe.pattern_expr`) or, failing that, from their
bytes compressed into the script (up to :data:`MAX_EMBEDDED_BYTES`); past that a script
is marked not reproducible, with the reason.

Why not ``pickle`` or ``copy.deepcopy`` alone: neither keeps which objects share memory
(``data`` a view of ``out``'s storage), pinned-ness or inference mode, and neither gives
readable source.
"""

from __future__ import annotations

import base64
import ctypes
import json
import math
import os
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch

from h2d_contracts.strategies.describe import describe_value, import_path_lines, literal, pattern_expr

from . import contexts
from .violations import ContractViolation, NotApplicable, problem_key

__all__ = ["Captured", "MAX_EMBEDDED_BYTES", "Verdict", "capture", "run_script", "verify"]

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

    Build with :func:`capture`; :meth:`script` writes the reproduction.
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    regions: list[_Region]
    state: dict[str, Any]
    problems: list[str] = field(default_factory=list)

    def script(self, *, check_module: str, check_name: str, spec: str, header: str = "") -> tuple[str, str]:
        """``(source, problem)``: the reproduction script, and why it may not reproduce ('' when nothing is known to be lost)."""
        return _Writer(self).script(check_module=check_module, check_name=check_name, spec=spec, header=header)


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
        if t.is_neg():
            self.problems.append("a tensor with the negative bit (torch._neg_view) is rebuilt with its values resolved")
            t = t.resolve_neg()
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


# --------------------------------------------------------------------------- writing the script


_NAN_HELPER = "def _float(bits):  # a float with these bits (a NaN payload a literal would lose)\n    return struct.unpack('<d', bytes.fromhex(bits))[0]\n"
_RO_HELPER = "def _read_only(a):\n    a.setflags(write=False)\n    return a\n"


class _Writer:
    def __init__(self, cap: Captured) -> None:
        self.cap = cap
        self.imports: set[str] = {"numpy as np", "torch"}
        self.helpers: list[str] = []
        self.region_lines: list[str] = []
        self.lines: list[str] = []
        self.inference_lines: list[str] = []
        self.region_names: dict[int, str] = {}
        self.problems = list(cap.problems)
        self.counter = 0

    def _name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _helper(self, text: str) -> None:
        if text not in self.helpers:
            self.helpers.append(text)

    # ---- memory
    def _bytes_expr(self, data: bytes, as_numpy: bool) -> str:
        """An expression giving a fresh writable uint8 array (numpy) or tensor (torch) holding ``data``."""
        if len(data) <= 512:
            hexed = data.hex()
            np_expr = f"np.frombuffer(bytearray.fromhex('{hexed}'), dtype=np.uint8)"
        else:
            packed = zlib.compress(data, 9)
            if len(packed) > MAX_EMBEDDED_BYTES:
                self.problems.append(
                    f"{len(data)} bytes of input memory compress to {len(packed)} bytes, more than the {MAX_EMBEDDED_BYTES} a script embeds"
                )
                np_expr = f"np.zeros({len(data)}, dtype=np.uint8)"
            else:
                self.imports.update({"base64", "zlib"})
                text = base64.b64encode(packed).decode()
                np_expr = f"np.frombuffer(bytearray(zlib.decompress(base64.b64decode('{text}'))), dtype=np.uint8)"
        return np_expr if as_numpy else f"torch.from_numpy({np_expr})"

    def _typed_region_expr(self, r: _Region, index: int) -> str | None:
        """A short constructor for a region: exactly one contiguous tensor or array of a numeric dtype, else
        the whole region read as the numeric dtype of a view over it (a strided view of an ``arange``)."""
        users = [n for n in self._all_nodes() if n.kind in ("tensor", "ndarray") and self._region_of(n) == index]
        if len(users) != 1:
            return self._region_pattern_expr(r, users)
        return self._one_user_expr(r, users[0]) or self._region_pattern_expr(r, users)

    def _region_pattern_expr(self, r: _Region, users: list[_Node]) -> str | None:
        """The region's bytes as a repeated pattern or progression of one of its views' numeric dtypes (verified by bytes)."""
        for n in users:
            if n.kind == "tensor":
                try:
                    np_dt = torch.empty(0, dtype=n.info["dtype"]).numpy().dtype
                except TypeError:
                    continue
            else:
                np_dt = n.info[2]
            if np_dt.kind not in "biuf" or not np_dt.isnative or not r.nbytes or r.nbytes % np_dt.itemsize:
                continue
            flat = np.frombuffer(self._host_bytes(r), dtype=np_dt)
            expr = pattern_expr(flat, "np.array({}, dtype='" + np_dt.str + "')")
            if expr is not None:
                as_numpy = r.device == "cpu" and r.tensors == 0
                return f"{expr}.view(np.uint8)" if as_numpy else f"torch.from_numpy({expr}).view(torch.uint8)"
        return None

    def _one_user_expr(self, r: _Region, n: _Node) -> str | None:
        """A short constructor for a region that is exactly ``n``, a contiguous tensor or array of a numeric dtype."""
        if n.kind == "tensor":
            info = n.info
            dt = info["dtype"]
            numel = math.prod(info["shape"])
            contiguous = info["stride"] == tuple(torch.empty(info["shape"], device="meta").stride())
            if (
                not contiguous
                or info["offset"]
                or info["byte_offset"]
                or info["storage_nbytes"] != r.nbytes
                or numel * dt.itemsize != r.nbytes
            ):
                return None
            try:
                np_dt = torch.empty(0, dtype=dt).numpy().dtype
            except TypeError:
                return None
            if np_dt.kind not in "biuf":
                return None
            flat = np.frombuffer(self._host_bytes(r), dtype=np_dt)
            expr = pattern_expr(flat, "np.array({}, dtype='" + np_dt.str + "')")
            return None if expr is None else f"torch.from_numpy({expr}).view(torch.uint8)"
        _, offset, dtype, shape, strides, _ = n.info
        if dtype.kind not in "biuf" or not dtype.isnative or offset or dtype.itemsize * math.prod(shape) != r.nbytes:
            return None
        c_strides = tuple(int(dtype.itemsize * math.prod(shape[i + 1 :])) for i in range(len(shape)))
        if strides != c_strides:
            return None
        flat = np.frombuffer(self._host_bytes(r), dtype=dtype)
        expr = pattern_expr(flat, "np.array({}, dtype='" + dtype.str + "')")
        return None if expr is None else f"{expr}.view(np.uint8)"

    def _host_bytes(self, r: _Region) -> bytes:
        if isinstance(r.data, torch.Tensor):
            r.data = r.data.cpu().numpy().tobytes()
        return cast(bytes, r.data)

    def _region_of(self, n: _Node) -> int | None:
        if n.kind == "tensor":
            return cast("int | None", n.info["region"])
        if n.kind == "ndarray":
            return cast("int | None", n.info[0])
        return None

    def _all_nodes(self) -> list[_Node]:
        out: list[_Node] = []
        stack: list[Any] = [*self.cap.args, *self.cap.kwargs.values()]
        while stack:
            n = stack.pop()
            if isinstance(n, tuple):
                stack.extend(n)
                continue
            out.append(n)
            stack.extend(n.children)
        return out

    def _region(self, index: int) -> str:
        if index in self.region_names:
            return self.region_names[index]
        r = self.cap.regions[index]
        name = self._name("_memory")
        as_numpy = r.device == "cpu" and r.tensors == 0
        expr = self._typed_region_expr(r, index) or self._bytes_expr(self._host_bytes(r), as_numpy)
        if not as_numpy and r.pinned:
            expr += ".pin_memory()"
        if r.device != "cpu":
            expr += f".to('{r.device}')"
        target = self.inference_lines if r.inference else self.region_lines
        target.append(f"{name} = {expr}  # {r.nbytes} bytes of {'pinned ' if r.pinned else ''}{r.device} memory")
        self.region_names[index] = name
        return name

    # ---- values
    def expr(self, n: _Node) -> str:
        k = n.kind
        if k == "py":
            return self._py(n.info)
        if k == "npscalar":
            return self._npscalar(*n.info)
        if k == "nptype":
            return f"np.{n.info}"
        if k == "list":
            return "[" + ", ".join(self.expr(c) for c in n.children) + "]"
        if k == "tuple":
            inner = ", ".join(self.expr(c) for c in n.children)
            return f"({inner},)" if len(n.children) == 1 else f"({inner})"
        if k == "dict":
            return "{" + ", ".join(f"{self.expr(a)}: {self.expr(b)}" for a, b in n.children) + "}"
        if k in ("set", "frozenset"):
            inner = ", ".join(self.expr(c) for c in n.children)
            return f"{k}([{inner}])"
        if k == "plainlist":
            return self._plain_list(n.info)
        if k == "generator":
            return "(i for i in range(3))"
        if k == "object":
            return "object()"
        if k == "class":
            module, qualname = n.info
            if module == "builtins":
                return cast(str, qualname)
            self.imports.add(module)
            return f"{module}.{qualname}"
        if k == "opaque":
            name = self._name("_not_rebuilt")
            self.region_lines.append(f"{name} = None  # could not be rebuilt: {n.info!r}"[:300])
            return name
        if k == "objarray":
            name = self._name("_objects")
            self.lines.append(f"{name} = np.empty({tuple(n.info)!r}, dtype=object)")
            self.lines.append(f"{name}.reshape(-1)[:] = [{', '.join(self.expr(c) for c in n.children)}]")
            return name
        if k == "emptyarray":
            dtype, shape = n.info
            return f"np.empty({tuple(shape)!r}, dtype=np.{dtype!r})"
        if k == "ndarray":
            return self._ndarray(n)
        if k in ("tensor", "emptytensor"):
            return self._tensor(n)
        if k == "meta":
            dtype, shape, stride = n.info
            return (
                f"torch.empty_strided({shape!r}, {stride!r}, dtype={dtype}, device='meta')"
                if stride is not None
                else f"torch.empty({shape!r}, dtype={dtype}, device='meta')"
            )
        if k == "nested":
            dtype, _device = n.info
            parts = ", ".join(self.expr(c) for c in n.children)
            self.imports.add("warnings")
            name = self._name("_nested")
            self.lines.append("with warnings.catch_warnings():  # torch warns that nested tensors are a prototype")
            self.lines.append("    warnings.simplefilter('ignore')")
            self.lines.append(f"    {name} = torch.nested.nested_tensor([{parts}])")
            return name
        if k == "literal":
            dtype, shape, raw = n.info
            return (
                f"{self._bytes_expr(raw, as_numpy=False)}.view({dtype}).reshape({shape!r})"
                if raw
                else f"torch.empty({shape!r}, dtype={dtype})"
            )
        if k == "quantized":
            dtype, scale, zero = n.info
            ints = self.expr(n.children[0])
            return f"torch.quantize_per_tensor(({ints}).to(torch.float32).sub({zero}).mul({scale!r}), {scale!r}, {zero}, {dtype})"
        if k == "sparse":
            if not n.children:
                self.problems.append(f"a {n.info} tensor without a dense form is not rebuilt")
                return "None"
            dense = self.expr(n.children[0])
            method = {
                "torch.sparse_coo": "to_sparse()",
                "torch.sparse_csr": "to_sparse_csr()",
                "torch.sparse_csc": "to_sparse_csc()",
            }.get(n.info)
            if method is None:
                self.problems.append(f"layout {n.info} is rebuilt as COO")
                method = "to_sparse()"
            return f"{dense}.{method}"
        raise ValueError(f"unknown node kind {k!r}")

    def _py(self, v: Any) -> str:
        if isinstance(v, float):
            if v != v:
                bits = struct.pack("<d", v).hex()
                if bits not in (struct.pack("<d", float("nan")).hex(),):
                    self.imports.add("struct")
                    self._helper(_NAN_HELPER)
                    return f"_float('{bits}')"
                return "float('nan')"
            return literal(v)
        if isinstance(v, complex):
            return f"complex({self._py(v.real)}, {self._py(v.imag)})"
        if isinstance(v, torch.dtype):
            return str(v)
        if isinstance(v, torch.device):
            return f"torch.device('{v.type}', {v.index})" if v.index is not None else f"torch.device('{v.type}')"
        if isinstance(v, np.dtype):
            return f"np.{v!r}"
        name = type(v).__module__
        if name == "decimal":
            self.imports.add("decimal")
            return f"decimal.{v!r}"
        if name == "fractions":
            self.imports.add("fractions")
            return f"fractions.Fraction({v.numerator}, {v.denominator})"
        return repr(v)

    def _npscalar(self, dtype: np.dtype, raw: bytes) -> str:
        value = np.frombuffer(raw, dtype=dtype)[0]
        if dtype.kind in "biufc" and dtype.isnative:
            candidate = f"np.{type(value).__name__}({self._py(value.item())})"
            try:
                rebuilt = eval(  # noqa: S307 - the kit's own generated source, checked before it is written
                    candidate,
                    {"np": np, "struct": struct, "_float": lambda b: struct.unpack("<d", bytes.fromhex(b))[0]},
                )
                if isinstance(rebuilt, np.generic) and rebuilt.dtype == dtype and rebuilt.tobytes() == raw:
                    return candidate
            except Exception:  # noqa: BLE001 - fall back to the bytes
                pass
        return f"np.frombuffer(bytes.fromhex('{raw.hex()}'), dtype=np.{dtype!r})[0]"

    def _plain_literal(self, value: Any) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(self._plain_literal(v) for v in value) + "]"
        if isinstance(value, tuple):
            inner = ", ".join(self._plain_literal(v) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return self._py(value)

    def _plain_list(self, value: list[Any] | tuple[Any, ...]) -> str:
        """A list or tuple of Python scalars (nested or not): literally, by a verified constructor, or pickled."""
        leaves = _leaves(value, _LITERAL_LEAVES)
        if leaves <= _LITERAL_LEAVES:
            return self._plain_literal(value)
        text = describe_value(value)
        if not text.startswith("<"):
            try:
                rebuilt = eval(text, {"np": np, "torch": torch})  # noqa: S307 - the kit's own verified constructor
            except Exception:  # noqa: BLE001 - fall back to the pickle
                rebuilt = None
            if _same_plain(rebuilt, value):
                return text
        return self._pickled(value)

    def _pickled(self, value: Any) -> str:
        import pickle

        packed = zlib.compress(pickle.dumps(value, protocol=4), 9)
        if len(packed) > MAX_EMBEDDED_BYTES:
            self.problems.append(
                f"a list of {len(value)} items pickles to {len(packed)} bytes, more than a script embeds"
            )
        self.imports.update({"base64", "pickle", "zlib"})
        return f"pickle.loads(zlib.decompress(base64.b64decode('{base64.b64encode(packed).decode()}')))"

    def _ndarray(self, n: _Node) -> str:
        index, offset, dtype, shape, strides, writeable = n.info
        r = self.cap.regions[index]
        memory = self._region(index)
        buffer = f"{memory}.numpy()" if r.tensors else memory
        expr = f"np.ndarray({tuple(shape)!r}, dtype=np.{dtype!r}, buffer={buffer}, offset={offset}, strides={tuple(strides)!r})"
        if not writeable:
            self._helper(_RO_HELPER)
            expr = f"_read_only({expr})"
        return expr

    def _tensor(self, n: _Node) -> str:
        info = n.info
        dtype, shape, stride, device = info["dtype"], info["shape"], info["stride"], info["device"]
        dev = f", device='{device}'" if device.type != "cpu" else ""
        if n.kind == "emptytensor":
            expr = f"torch.empty_strided({shape!r}, {stride!r}, dtype={dtype}{dev}{', pin_memory=True' if info['pinned'] else ''})"
        else:
            memory = self._region(info["region"])
            size = dtype.itemsize
            if info["byte_offset"] % size:
                self.problems.append(
                    "a tensor whose storage starts at a byte offset that is not a multiple of its element size is rebuilt in memory of its own"
                )
                memory = f"{memory}[{info['byte_offset']}:].clone()"
                base = 0
            else:
                base = info["byte_offset"] // size
            if info["requires_grad"] and not info["leaf"]:
                # a view of a leaf that requires grad: rebuild the leaf over the whole storage, then view it
                leaf = self._name("_leaf")
                count = info["storage_nbytes"] // size
                self.lines.append(
                    f"{leaf} = torch.empty(0, dtype={dtype}{dev}).set_({memory}.untyped_storage(), {base}, ({count},), (1,)).requires_grad_()"
                )
                expr = f"{leaf}.as_strided({shape!r}, {stride!r}, {info['offset']})"
            else:
                expr = f"torch.empty(0, dtype={dtype}{dev}).set_({memory}.untyped_storage(), {base + info['offset']}, {shape!r}, {stride!r})"
                if info["requires_grad"]:
                    expr += ".requires_grad_()"
        if info["conj"]:
            expr += ".conj()"
        if info["inference"]:
            name = self._name("_inference")
            self.inference_lines.append(f"{name} = {expr}")
            return name
        return expr

    # ---- the whole script
    def script(self, *, check_module: str, check_name: str, spec: str, header: str) -> tuple[str, str]:
        args = [self.expr(a) for a in self.cap.args]
        kwargs = {k: self.expr(v) for k, v in self.cap.kwargs.items()}
        state = self.cap.state
        pre: list[str] = []
        if state.get("default_dtype", torch.float32) != torch.float32:
            pre.append(f"torch.set_default_dtype({state['default_dtype']})")
        default_device = state.get("default_device")
        if default_device is not None and torch.device(default_device).type != "cpu":
            pre.append(f"torch.set_default_device('{default_device}')")
        if "cuda_device" in state and state["cuda_device"] != 0:
            pre.append(f"torch.cuda.set_device({state['cuda_device']})")
        body: list[str] = list(self.region_lines)
        if self.inference_lines:
            body.append("with torch.inference_mode():  # these tensors are inference tensors, as in the failing call")
            body += [f"    {line}" for line in self.inference_lines]
        body += self.lines
        call = (
            f"{check_name}(target{''.join(', ' + a for a in args)}{''.join(f', {k}={v}' for k, v in kwargs.items())})"
        )
        wraps = []
        if state.get("context", "none") != "none":
            # the calling context the kit entered around each call into the target (harness.contexts)
            self.imports.add("h2d_contracts.harness.contexts")
            wraps.append(f"h2d_contracts.harness.contexts.calling_context({state['context']!r})")
        if state.get("inference"):
            wraps.append("torch.inference_mode()")
        if not state.get("grad", True):
            wraps.append("torch.no_grad()")
        if state.get("side_stream"):
            wraps.append("torch.cuda.stream(torch.cuda.Stream())")
        lines = [header.rstrip("\n")] if header else []
        lines += [f"import {m}" for m in sorted(self.imports)]
        lines += import_path_lines(spec, state.get("cwd", ""))
        lines += ["", "from h2d_contracts.contracts import load_target", f"from {check_module} import {check_name}", ""]
        lines += [h.rstrip("\n") for h in self.helpers]
        if self.helpers:
            lines.append("")
        lines.append(f"target = load_target({spec!r})")
        lines += body + pre  # the global state last: a default device would take the rebuilt inputs there
        if wraps:
            lines.append(f"with {', '.join(wraps)}:")
            lines.append(f"    {call}")
        else:
            lines.append(call)
        return "\n".join(lines) + "\n", "; ".join(dict.fromkeys(self.problems))


# --------------------------------------------------------------------------- verification in a fresh interpreter

#: Runs a reproduction in a fresh interpreter and prints what happened after this marker.
_MARK = "H2D-REPRO "
_DRIVER = r"""
import json, runpy, sys, traceback
from h2d_contracts.harness.violations import ContractViolation, NotApplicable, problem_key
def walk(e):
    if isinstance(e, BaseExceptionGroup):
        for s in e.exceptions:
            yield from walk(s)
    else:
        yield e
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
    out = {"outcome": "passed"}
except NotApplicable as exc:
    out = {"outcome": "not applicable", "detail": str(exc)}
except BaseException as exc:
    found = [e for e in walk(exc) if isinstance(e, ContractViolation)]
    if found:
        out = {"outcome": "violation", "problems": [list(problem_key(e)) for e in found], "message": str(found[0])[:2000]}
    else:
        out = {"outcome": "error", "detail": "".join(traceback.format_exception(exc))[-3000:]}
print("H2D-REPRO " + json.dumps(out), flush=True)
"""


@dataclass
class Verdict:
    """What running a reproduction showed: ``verified`` and, when not, why."""

    verified: bool
    reason: str
    on_target: dict[str, Any]
    on_reference: dict[str, Any] | None


def run_script(path: str, *, timeout_s: float = 300.0, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the reproduction at ``path`` in a fresh interpreter (a subprocess); return its outcome (see :data:`_DRIVER`)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), **(env or {})}
    environment.pop("PYTEST_CURRENT_TEST", None)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _DRIVER, path], capture_output=True, text=True, timeout=timeout_s, env=environment
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "timed out", "detail": f"still running after {timeout_s:.0f} s"}
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(_MARK)), None)
    if line is None:
        return {"outcome": "error", "detail": f"exit {proc.returncode}: {proc.stderr[-2000:]}"}
    return cast("dict[str, Any]", json.loads(line[len(_MARK) :]))  # the driver prints one JSON object


def _forked(path: str, conn: Any) -> None:
    """The driver, in a process forked from the preloaded server: run the script, send its outcome, exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        import runpy
        import traceback

        def walk(e: BaseException) -> Any:
            if isinstance(e, BaseExceptionGroup):
                for sub in e.exceptions:
                    yield from walk(sub)
            else:
                yield e

        sys.argv = [path]
        try:
            runpy.run_path(path, run_name="__main__")
            out: dict[str, Any] = {"outcome": "passed"}
        except NotApplicable as exc:
            out = {"outcome": "not applicable", "detail": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - the outcome is reported whatever it is
            found = [e for e in walk(exc) if isinstance(e, ContractViolation)]
            if found:
                out = {
                    "outcome": "violation",
                    "problems": [list(problem_key(e)) for e in found],
                    "message": str(found[0])[:2000],
                }
            else:
                out = {"outcome": "error", "detail": "".join(traceback.format_exception(exc))[-3000:]}
    conn.send(out)
    conn.close()


#: Set while the preloaded verification server starts: the target specs its import loads.
PRELOAD_ENV = "H2D_REPRO_PRELOAD"


def _preloaded_runner(
    specs: list[str], workers: int, timeout_s: float
) -> Callable[[list[str]], list[dict[str, Any]]] | None:
    """A runner that forks each script's process from a server that has imported torch, numpy, the kit and the targets' modules.

    A fork costs milliseconds where a fresh ``python`` costs seconds (importing torch, and
    vLLM's modules for its targets: 4 s). Nothing has run in the server but imports
    (:mod:`contracts.targets.preload` loads the targets, never calls them), so a forked child is
    as fresh for a contract as a new interpreter: torch's once-per-process warnings have not
    fired. Only without CUDA: forking a process that initialised CUDA is unsafe, so a CUDA
    machine runs every script in a new interpreter (:func:`run_script`). None when forking
    is not available here.
    """
    import multiprocessing

    if torch.cuda.is_available() or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    ctx = multiprocessing.get_context("forkserver")
    previous = os.environ.get(PRELOAD_ENV)
    os.environ[PRELOAD_ENV] = ";".join(specs)
    try:
        ctx.set_forkserver_preload(["h2d_contracts.contracts.targets.preload"])
    except Exception:  # noqa: BLE001 - no preload: each fork imports what it needs
        pass

    def run(paths: list[str]) -> list[dict[str, Any]]:
        results: list[dict[str, Any] | None] = [None] * len(paths)
        pending = list(enumerate(paths))
        running: list[tuple[int, Any, Any, float]] = []
        import time

        try:
            while pending or running:
                while pending and len(running) < workers:
                    i, path = pending.pop(0)
                    parent, child = ctx.Pipe(duplex=False)
                    proc = ctx.Process(target=_forked, args=(path, child), daemon=True)
                    proc.start()
                    child.close()
                    running.append((i, proc, parent, time.monotonic()))
                for entry in list(running):
                    i, proc, conn, started = entry
                    if conn.poll(0.02):
                        try:
                            results[i] = conn.recv()
                        except EOFError:
                            results[i] = {
                                "outcome": "error",
                                "detail": f"the process ended without an outcome (exit {proc.exitcode})",
                            }
                    elif not proc.is_alive():
                        results[i] = {
                            "outcome": "error",
                            "detail": f"the process ended without an outcome (exit {proc.exitcode})",
                        }
                    elif time.monotonic() - started > timeout_s:
                        proc.kill()
                        results[i] = {"outcome": "timed out", "detail": f"still running after {timeout_s:.0f} s"}
                    else:
                        continue
                    proc.join(5)
                    conn.close()
                    running.remove(entry)
        finally:
            for _, proc, _conn, _ in running:
                proc.kill()
            if previous is None:
                os.environ.pop(PRELOAD_ENV, None)
            else:
                os.environ[PRELOAD_ENV] = previous
        return [r if r is not None else {"outcome": "error", "detail": "not run"} for r in results]

    return run


_TARGET_LINE = re.compile(r"^target = load_target\((?P<spec>'[^'\n]*'|\"[^\"\n]*\")\)$", re.M)


def reference_twin(script: str, spec: str) -> str:
    """The same script with the target line pointing at the reference (its CPU variant for a CPU-variant entry point)."""
    ref = "reference[cpu-variant]" if spec.endswith("[cpu-variant]") else "reference"
    return _TARGET_LINE.sub(f"target = load_target({ref!r})", script, count=1)


def verify(
    jobs: list[tuple[str, str, str, tuple[str, str]]],
    workdir: str,
    *,
    timeout_s: float = 300.0,
    workers: int | None = None,
) -> list[Verdict]:
    """Run each ``(name, script, spec, expected problem key)`` against its target and the reference, in parallel.

    Verified means: on the target the script raised a violation of the expected
    ``(contract, kind)`` (:func:`harness.violations.problem_key`), and on the
    reference it passed. Scripts are written to ``workdir/<name>.py`` (the target's) and
    ``workdir/<name>.reference.py``.
    """
    os.makedirs(workdir, exist_ok=True)
    workers = workers or max(1, os.cpu_count() or 1)
    paths, refs = [], []
    for name, script, spec, _ in jobs:
        path = os.path.join(workdir, f"{name}.py")
        with open(path, "w") as fh:
            fh.write(script)
        ref_path = os.path.join(workdir, f"{name}.reference.py")
        with open(ref_path, "w") as fh:
            fh.write(reference_twin(script, spec))
        paths.append(path)
        refs.append(ref_path)
    specs = sorted({spec.removesuffix("[cpu-variant]") for _, _, spec, _ in jobs} | {"reference"})
    runner = _preloaded_runner(specs, workers, timeout_s)
    if runner is None:
        with ThreadPoolExecutor(max_workers=workers) as pool:

            def run(ps: list[str]) -> list[dict[str, Any]]:
                return list(pool.map(lambda p: run_script(p, timeout_s=timeout_s), ps))

            on_target, on_reference = run(paths), run(refs)
    else:
        on_target, on_reference = runner(paths), runner(refs)
    verdicts = []
    for (_name, _, spec, key), got, ref in zip(jobs, on_target, on_reference):
        if got["outcome"] != "violation":
            verdicts.append(
                Verdict(
                    False,
                    f"on {spec} it {_ended(got['outcome'])}"
                    + (f": {got.get('detail', '')[-300:]}" if got.get("detail") else ""),
                    got,
                    None,
                )
            )
        elif list(key) not in got["problems"]:
            seen = "; ".join(f"[{c}] {k}" for c, k in got["problems"])
            verdicts.append(Verdict(False, f"on {spec} it failed another way: {seen}", got, None))
        elif ref["outcome"] != "passed":
            detail = ref.get("message") or ref.get("detail") or ""
            verdicts.append(
                Verdict(
                    False,
                    f"on the reference it {_ended(ref['outcome'])} too (a kit error, or an input the reference refuses): {detail[:300]}",
                    got,
                    ref,
                )
            )
        else:
            verdicts.append(Verdict(True, "", got, ref))
    return verdicts


def _ended(outcome: str) -> str:
    """A run's outcome as a verb phrase: ``passed``, ``was not applicable``, ``failed with a violation``, ``ended in an error``."""
    return {
        "violation": "failed with a violation",
        "error": "ended in an error",
        "not applicable": "was not applicable",
    }.get(outcome, outcome)
