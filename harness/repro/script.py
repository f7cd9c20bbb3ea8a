"""Writing a captured call back as a self-contained script that loads the target and calls the check again."""

from __future__ import annotations

import base64
import math
import struct
import zlib
from typing import Any, cast

import numpy as np
import torch

from h2d_contracts.strategies.describe import describe_value, import_path_lines, literal, pattern_expr

from .capture import (
    _LITERAL_LEAVES,
    MAX_EMBEDDED_BYTES,
    Captured,
    _leaves,
    _Node,
    _Region,
    _same_plain,
)

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
        return self._array_expr(n)

    def _array_expr(self, n: _Node) -> str:
        """The source of an array or tensor node (empty, typed, meta, nested, literal bytes, quantized, sparse)."""
        k = n.kind
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
        if info["neg"]:
            expr = f"torch._neg_view({expr})"
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


def write_script(cap: Captured, *, check_module: str, check_name: str, spec: str, header: str = "") -> tuple[str, str]:
    """``(source, problem)``: the reproduction script of ``cap``, and why it may not reproduce ('' when nothing is known to be lost).

    The script loads the target by ``spec`` (its ``--h2d-impl``), rebuilds every captured
    argument with statements and calls ``check_module.check_name`` again.
    """
    return _Writer(cap).script(check_module=check_module, check_name=check_name, spec=spec, header=header)
