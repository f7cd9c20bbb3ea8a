"""Failure reporting: one message template and copy-pasteable reproductions.

Template (after array-api-tests' ``pytest_helpers``): ``[contract] what: got X, expected
Y`` then the call that produced it. The reproduction is attached as an exception note.
"""

from __future__ import annotations

import unittest
from typing import Any

import numpy as np
import torch

__all__ = ["ContractViolation", "NotApplicable", "fail", "repro_call", "repro_value"]


class ContractViolation(AssertionError):
    """A target broke a contract. ``contract`` is the catalogue id (e.g. ``"out"``)."""

    def __init__(self, contract: str, message: str) -> None:
        super().__init__(f"[{contract}] {message}")
        self.contract = contract


class NotApplicable(unittest.SkipTest):
    """The target lacks the capability a contract needs: reported as "not applicable", never a pass.

    A ``unittest.SkipTest`` subclass, so pytest reports it as a skip with this reason and
    Hypothesis re-raises it at once instead of treating it as a falsifying example.
    """


def _literal(value: Any) -> str:
    """Python source for a (nested) list of numbers; NaN and inf become float('nan') / float('inf')."""
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"float('{value}')"
    return repr(value)


def _short_list(values: Any) -> str:
    text = _literal(values)
    return text if len(text) <= 400 else text[:397] + "..." + text[-1]


def _is_pinned(t: torch.Tensor) -> bool:
    try:
        return t.is_pinned()
    except RuntimeError:
        return False


def repro_value(obj: Any) -> str:
    """Python source that rebuilds ``obj`` (values, dtype, device, pinned-ness, layout noted)."""
    if isinstance(obj, torch.Tensor):
        if obj.is_nested:
            return f"<nested tensor of {obj.size(0)} components, dtype {obj.dtype}>"
        if obj.layout != torch.strided or obj.device.type == "meta":
            return f"<{obj.layout} tensor on {obj.device}, shape {tuple(obj.shape)}, dtype {obj.dtype}>"
        host = obj.detach().cpu()
        # Bit patterns where the printed value would lose them: float8 always; any NaN
        # (its payload is part of the data: the values contract compares it for pure copies).
        as_bits = "float8" in str(obj.dtype) or (
            (host.is_floating_point() or host.is_complex()) and host.numel() > 0 and bool(torch.isnan(host).any())
        )
        if as_bits:
            real = torch.view_as_real(host) if host.is_complex() else host
            width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[real.element_size()]
            text = _short_list(real.contiguous().view(width).tolist())
            base = f"torch.tensor({text}, dtype={width}).view({real.dtype})"
            if host.is_complex():
                base = f"torch.view_as_complex({base})"
        else:
            base = f"torch.tensor({_short_list(host.tolist())}, dtype={obj.dtype})"
        notes = []
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
        return base + (f"  # {', '.join(notes)}" if notes else "")
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "biufc":
            text = _short_list(obj.tolist() if obj.ndim else obj.item())
            base = f"np.array({text}, dtype='{obj.dtype.str}')"
            if obj.size == 0 and obj.ndim != 1:
                base += f".reshape({obj.shape})"
        else:
            base = f"np.array({obj.tolist()!r}, dtype='{obj.dtype.str}')"
        notes = []
        if not obj.flags.c_contiguous:
            notes.append(f"strides {obj.strides}")
        if not obj.flags.writeable:
            notes.append("read-only")
        return base + (f"  # {', '.join(notes)}" if notes else "")
    if isinstance(obj, (list, tuple)):
        return _short_list(obj)
    if isinstance(obj, float):
        return _literal(obj)
    if isinstance(obj, torch.dtype):
        return str(obj)
    if isinstance(obj, torch.device):
        return f"torch.device('{obj}')"
    return repr(obj)


def repro_call(data: Any, kwargs: dict[str, Any], fn: str = "async_tensor_h2d") -> str:
    """``fn(data, device=..., dtype=..., out=...)`` as Python source."""
    parts = [repro_value(data).split("  #")[0]]
    parts += [f"{k}={repro_value(v).split('  #')[0]}" for k, v in kwargs.items()]
    notes = [f"{name}: {repro_value(v).split('  # ')[1]}" for name, v in [("data", data), *kwargs.items()] if "  # " in repro_value(v)]
    return f"{fn}({', '.join(parts)})" + (f"  # {'; '.join(notes)}" if notes else "")


def fail(contract: str, what: str, *, got: Any, expected: Any, call: str | None = None) -> None:
    """Raise ContractViolation with the kit's message template."""
    __tracebackhide__ = True
    msg = f"{what}: got {got}, expected {expected}"
    if call:
        msg += f"\n  call: {call}"
    raise ContractViolation(contract, msg)
