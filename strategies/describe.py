"""One-line Python descriptions of the values a contract called a target with (the ``call:`` line of a message).

:func:`describe_call` gives ``async_tensor_h2d(data, device=..., ...)`` as source, each
argument rebuilt by a short expression (:func:`describe_value`); inputs of more than
:data:`LITERAL_MAX_ELEMENTS` elements by a verified constructor or a summary, so a message
costs O(1) in the input's size. What one line cannot rebuild (a storage offset, memory
shared with ``out``, inference mode) is noted in a trailing comment; the reproduction
script of a failure (:mod:`harness.repro`) rebuilds all of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

__all__ = [
    "LITERAL_MAX_ELEMENTS",
    "LazyCall",
    "pattern_expr",
    "describe_call",
    "describe_value",
    "large_array_expr",
    "large_tensor_expr",
    "literal",
]


#: Inputs with more elements than this (256: a few kB of text at most) are described by how to rebuild them (a verified
#: ``torch.full`` / ``torch.arange`` / repeated-pattern constructor, or a summary with a
#: checksum), never element by element: building a report costs O(1) Python work in the
#: input's size (once a 16 MiB tensor printed through ``tolist()`` under Hypothesis's
#: explain phase kept a GPU run busy for minutes and it wrote no report).
LITERAL_MAX_ELEMENTS = 256
#: Periods tried for a repeated pattern (bool masks such as ``arange % 2 == 0``).
_MAX_PERIOD = 8


def literal(value: Any) -> str:
    """Python source for a (nested) list of numbers; NaN and inf become float('nan') / float('inf'), an int too long for
    ``repr`` (past ``sys.get_int_max_str_digits()``) ``int('0x...', 16)``."""
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"float('{value}')"
    if isinstance(value, (np.ndarray, torch.Tensor, torch.device)):  # an array inside a list: rebuilt, not repr'd
        return describe_value(value).split("  # ")[0]
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return repr(value)
        except ValueError:  # past Python's integer-string limit (4,300 digits); hex is exempt from it
            return f"int({hex(value)!r}, 16)"
    return repr(value)


def _short_list(values: Any) -> str:
    """``literal(values)``, whole: a ``call:`` line must run as printed (at most ``LITERAL_MAX_ELEMENTS`` leaves come here)."""
    return literal(values)


def _count_leaves(value: Any, limit: int) -> int:
    """Leaves of a nested list/tuple, counting stops once past ``limit`` (O(limit), not O(size))."""
    count = 0
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            if len(item) > limit:
                return limit + 1
            stack.extend(item)
        else:
            count += 1
    return count


def _periodic(bits: np.ndarray, period: int) -> bool:
    """Whether 1-D ``bits`` repeats its first ``period`` elements throughout (``np.resize(bits[:period], n)``, without
    building that copy: rows of ``period`` compared by broadcasting)."""
    n = bits.size
    whole = n - n % period
    rows = bits[:whole].reshape(-1, period)
    return bool((rows == bits[:period]).all()) and np.array_equal(bits[whole:], bits[: n - whole])


def pattern_expr(flat: np.ndarray, make: str) -> str | None:
    """A short numpy expression rebuilding 1-D ``flat`` bit for bit, or None.

    ``make`` formats a small literal array of ``flat``'s dtype (``make.format(text)``).
    Tried in order, each verified against ``flat`` by its bytes: a repeated pattern of
    period 1..8 (constants, bool masks), then an arithmetic progression ``start + step * i``
    computed in int64 or float64 and cast. Vectorised: O(n) in C, O(1) in Python.
    """
    n = flat.size
    bits = (
        flat.view(f"u{flat.dtype.itemsize}")
        if flat.dtype.kind in "fcb" and flat.dtype.itemsize in (1, 2, 4, 8)
        else flat
    )
    for period in range(1, min(_MAX_PERIOD, n) + 1):
        # O(1) rejections first (the second element of the period, the last element): a long array with one odd
        # element at its end otherwise cost eight full-size np.resize passes (0.2 s at 2**21 elements)
        if (n <= period or (bits[period] == bits[0] and bits[n - 1] == bits[(n - 1) % period])) and _periodic(
            bits, period
        ):
            return f"np.resize({make.format(literal(flat[:period].tolist()))}, {n})"
    if flat.dtype.kind in "iu" or (flat.dtype.kind == "f" and flat.dtype.itemsize >= 4):
        wide = "int64" if flat.dtype.kind in "iu" else "float64"
        start, step = flat[:2].astype(wide).tolist()
        step = step - start
        if wide == "int64" and not -(2**63) <= step < 2**63:
            return None  # no int64 progression (two bit patterns far apart: a NaN's and a number's)
        with np.errstate(all="ignore"):
            candidate = (np.arange(n, dtype=wide) * np.array(step, dtype=wide) + np.array(start, dtype=wide)).astype(
                flat.dtype
            )
        if np.array_equal(candidate.view(bits.dtype), bits):
            return f"(np.arange({n}, dtype=np.{wide}) * {literal(step)} + {literal(start)}).astype('{flat.dtype.str}')"
    return None


def _summary(flat: np.ndarray) -> str:
    """Not rebuildable by a short expression: the first and last values, range and a CRC-32 of the bytes."""
    import zlib

    head, tail = literal(flat[:6].tolist()), literal(flat[-3:].tolist())
    extra = ""
    if flat.dtype.kind in "biuf":
        with np.errstate(all="ignore"):
            extra = f", min {literal(np.nanmin(flat).item()) if flat.dtype.kind != 'b' else bool(flat.min())}, max {literal(np.nanmax(flat).item()) if flat.dtype.kind != 'b' else bool(flat.max())}"
    # an ndarray is a buffer; numpy's stubs declare ndarray.__buffer__ only for Python >= 3.12
    crc = zlib.crc32(np.ascontiguousarray(flat).view(np.uint8))  # type: ignore[arg-type]
    return f"<{flat.size} elements of {flat.dtype.str}: first {head}, last {tail}{extra}, crc32 0x{crc:08x}>"


def large_array_expr(arr: np.ndarray) -> str:
    """Rebuild a large ndarray's values (C order, its dtype, its shape) by a short expression, else summarise it."""
    flat = np.ascontiguousarray(arr).reshape(-1)
    if (
        flat.dtype.kind in "fc" and flat.dtype.itemsize <= 8 and np.isnan(flat).any()
    ):  # keep NaN payloads: through the bits
        bits = flat.view(f"u{flat.dtype.itemsize}")
        expr = pattern_expr(bits, "np.array({}, dtype='" + bits.dtype.str + "')")
        expr = None if expr is None else f"{expr}.view('{flat.dtype.str}')"
    else:
        expr = pattern_expr(flat, "np.array({}, dtype='" + flat.dtype.str + "')")
    if expr is None:
        return _summary(flat)
    return expr if arr.ndim == 1 else f"{expr}.reshape({arr.shape})"


def large_tensor_expr(host: torch.Tensor) -> str:
    """Like :func:`large_array_expr` for a host tensor; dtypes numpy lacks go through their bits."""
    flat = host.detach().reshape(-1).contiguous()
    name = str(flat.dtype)
    if (
        flat.dtype in (torch.bfloat16, torch.complex32)
        or "float8" in name
        or flat.is_complex()
        or (flat.is_floating_point() and bool(torch.isnan(flat).any()))
    ):
        real = torch.view_as_real(flat) if flat.is_complex() else flat
        width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[real.element_size()]
        inner = pattern_expr(
            real.reshape(-1).view(width).numpy(), "np.array({}, dtype='" + np.dtype(str(width).split(".")[1]).str + "')"
        )
        if inner is None:
            return _summary(real.reshape(-1).view(width).numpy()) + f" (bits of {flat.dtype})"
        expr = f"torch.from_numpy({inner}).view({real.dtype})"
        if flat.is_complex():
            expr = f"torch.view_as_complex({expr}.reshape(-1, 2))"
    else:
        inner = pattern_expr(flat.numpy(), "np.array({}, dtype='" + flat.numpy().dtype.str + "')")
        if inner is None:
            return _summary(flat.numpy()) + f" ({flat.dtype})"
        expr = f"torch.from_numpy({inner})"
    return expr if host.dim() == 1 else f"{expr}.reshape{tuple(host.shape)}"


def _large_list_expr(value: Any) -> str:
    """A large (nested) list as ``<array expr>.tolist()`` when numpy reads it as one numeric array, else a summary."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        return f"<{type(value).__name__} of {len(value)} items (nested or mixed): first {_short_list(list(value[:4]))[:200]}>"
    text = large_array_expr(arr)
    if text.startswith("<"):
        return text.replace("elements of", "list elements read as", 1)
    return f"{text}.tolist()" if isinstance(value, list) else f"tuple({text}.tolist())"


def _is_pinned(t: torch.Tensor) -> bool:
    try:
        return t.is_pinned()
    except RuntimeError:
        return False


def _strided_array_expr(arr: np.ndarray, values: str) -> str | None:
    """An expression rebuilding ``arr``'s positive, itemsize-aligned strides over ``values`` (its values,
    C order), through a torch tensor of those strides, for the numeric dtypes both libraries share."""
    if (
        not values.startswith("np.")
        or arr.dtype.kind not in "biufc"
        or not arr.dtype.isnative
        or any(st <= 0 or st % arr.itemsize for st in arr.strides)
    ):
        return None
    try:
        dtype = torch.from_numpy(np.zeros(0, dtype=arr.dtype)).dtype
    except TypeError:
        return None
    elems = tuple(st // arr.itemsize for st in arr.strides)
    return f"torch.empty_strided({arr.shape}, {elems}, dtype={dtype}).copy_(torch.from_numpy({values})).numpy()"


def describe_value(obj: Any) -> str:
    """Python source that rebuilds ``obj`` (values, dtype, device, pinned-ness, layout noted)."""
    if isinstance(obj, torch.Tensor):
        return _describe_tensor(obj)
    if isinstance(obj, np.ndarray):
        return _describe_array(obj)
    if isinstance(obj, (list, tuple)):
        if _count_leaves(obj, LITERAL_MAX_ELEMENTS) > LITERAL_MAX_ELEMENTS:
            return _large_list_expr(obj)
        return _short_list(obj)
    if isinstance(obj, float):
        return literal(obj)
    if isinstance(obj, torch.dtype):
        return str(obj)
    if isinstance(obj, torch.device):
        return f"torch.device('{obj}')"
    return repr(obj)


def _describe_tensor(obj: torch.Tensor) -> str:
    """A tensor: its values (:func:`_tensor_values`), then its layout, pinned-ness, device, subclass and autograd state."""
    if obj.is_nested:
        try:
            parts = [describe_value(c).split("  #")[0] for c in obj.unbind()]
        except RuntimeError:
            return f"<nested tensor of {obj.size(0)} components, dtype {obj.dtype}>"
        layout = ", layout=torch.jagged" if obj.layout == torch.jagged else ""
        return f"torch.nested.nested_tensor([{', '.join(parts)}]{layout})"
    if obj.layout != torch.strided or obj.device.type == "meta" or obj.is_quantized:
        return f"<{obj.layout} tensor on {obj.device}, shape {tuple(obj.shape)}, dtype {obj.dtype}>"
    if obj._is_zerotensor():  # no storage to read (forward-mode AD's zeros): rebuilt as what it is
        where = f", device='{obj.device}'" if obj.device.type != "cpu" else ""
        return f"torch._efficientzerotensor({tuple(obj.shape)}, dtype={obj.dtype}{where})"
    host = obj.detach().cpu()
    try:
        base, large, as_bits = _tensor_values(obj, host)
    except RuntimeError:
        if not (obj.is_neg() or obj.is_conj()):
            raise
        # a large view with the negative or conjugate bit, which numpy cannot read: the bit over its storage's values
        # (toggling the bit again gives the plain view of the same storage)
        plain = torch._neg_view(obj) if obj.is_neg() else obj.conj()
        return f"torch._neg_view({_describe_tensor(plain)})" if obj.is_neg() else f"({_describe_tensor(plain)}).conj()"
    notes = []
    if obj.is_neg() and obj.dtype in (torch.float32, torch.float64) and not large and not as_bits:
        # the negative bit (x.conj().imag): the imaginary part of a conjugated complex tensor, values as they read
        cplx = "torch.complex64" if obj.dtype is torch.float32 else "torch.complex128"
        negated = _short_list((-host).tolist())
        base = f"torch.tensor({negated}, dtype={obj.dtype}).mul(1j).to({cplx}).conj().imag"
        return base + (f".to('{obj.device}')" if obj.device.type != "cpu" else "")
    if obj.is_neg() and not large and not as_bits:
        # the negative bit on any other dtype (torch._neg_view, the one way to it for integers): the bit over the
        # storage's values (negating the view's values gives them back, wrapping as the storage did)
        base = f"torch._neg_view(torch.tensor({_short_list((-host).tolist())}, dtype={obj.dtype}))"
    elif obj.is_conj() and obj.is_complex() and not large and not as_bits:
        base = f"torch.tensor({_short_list(host.conj().tolist())}, dtype={obj.dtype}).conj()"  # the conjugate bit
    strided = not obj.is_contiguous() and obj.numel() > 1 and all(st > 0 for st in obj.stride())
    if strided:
        # Rebuild the layout too (strides; the storage offset is only noted).
        pin = ", pin_memory=True" if obj.device.type == "cpu" and _is_pinned(obj) else ""
        base = f"torch.empty_strided({tuple(obj.shape)}, {obj.stride()}, dtype={obj.dtype}{pin}).copy_({base})"
    elif obj.device.type == "cpu" and _is_pinned(obj):
        base += ".pin_memory()"
    if obj.device.type != "cpu":
        base += f".to('{obj.device}')"
    if not obj.is_contiguous() and not strided:
        notes.append(f"strides {obj.stride()}")
    if obj.storage_offset():
        notes.append(f"storage offset {obj.storage_offset()}")
    if obj.is_inference():
        notes.append("made under torch.inference_mode()")
    if obj.numel() == 0 and obj.dim() != 1:
        base += f".reshape{tuple(obj.shape)}"  # an empty nested list loses the shape
    if type(obj) is not torch.Tensor and not isinstance(obj, torch.nn.Parameter):
        base += f".as_subclass({type(obj).__name__})"  # a tensor subclass (the report's preamble imports the kit's)
    if obj.requires_grad:
        base += ".requires_grad_()"  # a leaf that requires grad (a non-leaf's graph is not rebuilt)
        if obj.grad_fn is not None:
            notes.append(f"a non-leaf of the caller's graph (grad_fn {type(obj.grad_fn).__name__})")
    return base + (f"  # {', '.join(notes)}" if notes else "")


def _tensor_values(obj: torch.Tensor, host: torch.Tensor) -> tuple[str, bool, bool]:
    """``(expression, large, as_bits)``: ``host`` (``obj`` on the host) as a literal, as bit patterns where the printed value
    would lose them, or past :data:`LITERAL_MAX_ELEMENTS` elements as :func:`large_tensor_expr` gives it."""
    large = host.numel() > LITERAL_MAX_ELEMENTS
    # Bit patterns where the printed value would lose them: float8 always; any NaN
    # (its payload is part of the data: the values contract compares it for pure copies).
    as_bits = "float8" in str(obj.dtype) or (
        (host.is_floating_point() or host.is_complex()) and host.numel() > 0 and bool(torch.isnan(host).any())
    )
    if large:
        base = large_tensor_expr(host)
    elif as_bits:
        real = torch.view_as_real(host) if host.is_complex() else host
        width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[real.element_size()]
        text = _short_list(real.contiguous().view(width).tolist())
        base = f"torch.tensor({text}, dtype={width}).view({real.dtype})"
        if host.is_complex():
            base = f"torch.view_as_complex({base})"
    else:
        base = f"torch.tensor({_short_list(host.tolist())}, dtype={obj.dtype})"
    return base, large, as_bits


def _describe_array(obj: np.ndarray) -> str:
    """An ndarray: its values (a literal, a large array's constructor or a summary), flipped axes, strides, read-only."""
    if obj.dtype.kind in "biufc" and obj.size > LITERAL_MAX_ELEMENTS:
        base = large_array_expr(obj)
    elif obj.dtype.kind in "biufc":
        text = _short_list(obj.tolist() if obj.ndim else obj.item())
        base = f"np.array({text}, dtype='{obj.dtype.str}')"
        if obj.size == 0 and obj.ndim != 1:
            base += f".reshape({obj.shape})"
    elif obj.size > LITERAL_MAX_ELEMENTS:
        base = f"<{obj.size} elements of dtype {obj.dtype.str}, shape {obj.shape}>"
    else:
        base = f"np.array({obj.tolist()!r}, dtype='{obj.dtype.str}')"
    notes = []
    c_strides = tuple(int(obj.itemsize * np.prod(obj.shape[i + 1 :], dtype=np.int64)) for i in range(obj.ndim))
    flipped = tuple(i for i, st in enumerate(obj.strides) if st < 0)
    if flipped and base.startswith("np.array("):
        # Negative strides (np.flip, [::-1]), on size-1 dimensions too, where numpy still calls the
        # array C-contiguous: rebuilt as a flipped view of the flipped values (same values, same signs).
        base = f"np.flip(np.flip({base}, {flipped}).copy(), {flipped})"
    if not obj.flags.c_contiguous or obj.strides != c_strides:
        rebuilt = _strided_array_expr(obj, base)
        if rebuilt is None:
            notes.append(f"strides {obj.strides}")
        else:
            base = rebuilt
    if not obj.flags.writeable:
        # a read-only view of the same values and strides, in one expression
        base = f"np.lib.stride_tricks.as_strided({base}, writeable=False)"
    cls = type(obj)
    if cls is not np.ndarray:  # a subclass: numpy's own rebuilt as a view of that class, another named
        if getattr(np, cls.__name__, None) is cls:
            base = f"{base}.view(np.{cls.__name__})"
        else:
            notes.append(f"an ndarray subclass {cls.__module__}.{cls.__qualname__}")
    return base + (f"  # {', '.join(notes)}" if notes else "")


class LazyCall:
    """:func:`describe_call` made only when a failure message needs it (``str()``): a passing row of a size table costs nothing.

    The arguments are described as they are when the text is made; checks that mutate
    their inputs before failing describe them eagerly instead.
    """

    __slots__ = ("_args", "_text")

    def __init__(
        self,
        data: Any,
        kwargs: dict[str, Any],
        fn: str = "async_tensor_h2d",
        arg_names: Mapping[str, str] | None = None,
    ) -> None:
        self._args: tuple[Any, dict[str, Any], str, Mapping[str, str] | None] | None = (
            data,
            dict(kwargs),
            fn,
            arg_names,
        )
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None and self._args is not None:
            data, kwargs, fn, arg_names = self._args
            self._text, self._args = describe_call(data, kwargs, fn=fn, arg_names=arg_names), None
        return self._text or ""

    def __bool__(self) -> bool:
        return True


def import_path_lines(spec: str, cwd: str) -> list[str]:
    """Script lines that make a target spec's package importable from ``cwd`` (where pytest ran), as it was there:
    for a ``module:factory`` spec of a package that is not installed; none for a built-in target's name."""
    if ":" not in spec or not cwd:
        return []
    return ["import sys", "", f"sys.path.insert(0, {cwd!r})  # where pytest ran"]


def describe_call(
    data: Any,
    kwargs: dict[str, Any],
    fn: str = "async_tensor_h2d",
    arg_names: Mapping[str, str] | None = None,
    positional: tuple[str, ...] = (),
) -> str:
    """``fn(data, device=..., dtype=..., out=...)`` as Python source (each argument described once).

    ``fn`` and ``arg_names`` (protocol name -> the function's own, :attr:`Target.arg_names`)
    make it the target's own call: ``async_h2d([1], target_device='cuda:0')``. The arguments
    in ``positional`` go by position, in its order (one the call omits as ``None``):
    ``async_tensor_h2d([1], 'cpu')``.
    """
    names = arg_names or {}
    ordered = [(k, kwargs.get(k)) for k in positional] + [(k, v) for k, v in kwargs.items() if k not in positional]
    described = [("data", describe_value(data)), *((names.get(k, k), describe_value(v)) for k, v in ordered)]
    bare = {"data", *(names.get(k, k) for k in positional)}
    parts = [text.split("  #")[0] if name in bare else f"{name}={text.split('  #')[0]}" for name, text in described]
    notes = [f"{name}: {text.split('  # ', 1)[1]}" for name, text in described if "  # " in text]
    shared = _memory_shared_with_out(data, kwargs.get("out"))
    if shared:
        notes.append(shared)
    return f"{fn}({', '.join(parts)})" + (f"  # {'; '.join(notes)}" if notes else "")


def _memory_shared_with_out(data: Any, out: Any) -> str:
    """A note when ``data`` is a view of ``out``'s host memory (the literals above would not rebuild that aliasing)."""
    if not isinstance(out, torch.Tensor) or out.device.type != "cpu" or not out.numel():
        return ""
    try:
        if isinstance(data, np.ndarray) and data.size:
            base = out.untyped_storage().data_ptr()
            lo = data.__array_interface__["data"][0]
            if base <= lo < base + out.untyped_storage().nbytes():
                return f"data is a view of out's storage, starting {lo - base} bytes into it (e.g. base = torch.zeros(...); out = base[1:]; data = base.numpy()[:-1])"
        if (
            isinstance(data, torch.Tensor)
            and data.device.type == "cpu"
            and data.numel()
            and data.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
        ):
            return f"data and out are views of one storage (data at element offset {data.storage_offset()}, out at {out.storage_offset()})"
    except Exception:  # noqa: BLE001 - a note must never break a report
        return ""
    return ""
