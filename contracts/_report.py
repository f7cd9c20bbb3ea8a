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
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"float('{value}')"
    return repr(value)


def _short_list(values: Any) -> str:
    text = _literal(values)
    return text if len(text) <= 400 else text[:397] + "...]"


def repro_value(obj: Any) -> str:
    """Python source that rebuilds ``obj`` (values, dtype, device, pinned-ness, layout noted)."""
    if isinstance(obj, torch.Tensor):
        if obj.is_nested:
            return f"<nested tensor of {obj.size(0)} components, dtype {obj.dtype}>"
        if obj.layout != torch.strided or obj.device.type == "meta":
            return f"<{obj.layout} tensor on {obj.device}, shape {tuple(obj.shape)}, dtype {obj.dtype}>"
        host = obj.detach().cpu()
        float8 = "float8" in str(obj.dtype)
        vals = host.view(torch.uint8).tolist() if float8 else host.tolist()
        text = _short_list(vals)
        if float8:
            base = f"torch.tensor({text}, dtype=torch.uint8).view({obj.dtype})"
        else:
            base = f"torch.tensor({text}, dtype={obj.dtype})"
        notes = []
        if obj.device.type == "cpu":
            try:
                if obj.is_pinned():
                    base += ".pin_memory()"
            except RuntimeError:
                pass
        else:
            base += f".to('{obj.device}')"
        if not obj.is_contiguous():
            notes.append(f"strides {obj.stride()}")
        if obj.storage_offset():
            notes.append(f"storage offset {obj.storage_offset()}")
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
    if isinstance(obj, list):
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
