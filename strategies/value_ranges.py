"""Value-range bad inputs: values a target dtype cannot hold (NaN and infinities into integers, integers past a
dtype's range, complex into real, negatives into unsigned), each carried as a list, an ndarray, a tensor or a 0-d
scalar, with the dtype that refuses them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._dtypes import UNSIGNED_WIDE_DTYPES

#: The routes a target dtype reaches a call by.
ROUTES = ("out", "dtype")
#: Real dtypes a complex input is refused into (floating and integer).
REAL_TARGETS = (torch.float32, torch.float64, torch.int32, torch.int64)

_INT_TARGETS = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64) + UNSIGNED_WIDE_DTYPES
_FLOAT_CARRIERS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

#: Value-range bad-input kinds -> (the data kinds that can carry them, what they are).
#: Each is drawn over every carrier (list, ndarray, tensor) and route (``out=``, ``dtype=``).
VALUE_KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "nan-to-int": (("list", "ndarray", "tensor", "scalar"), "a NaN into an integer dtype"),
    "inf-to-int": (("list", "ndarray", "tensor", "scalar"), "+-inf into an integer dtype"),
    "out-of-range-int": (("list", "ndarray", "tensor", "scalar"), "2**40 into a narrower integer dtype"),
    "out-of-range-uint8": (("list", "ndarray", "tensor", "scalar"), "-1 (or -1.5, truncated to -1) into uint8"),
    "int-beyond-int64": (("list", "scalar"), "2**64 into int64 (only a Python int can hold it)"),
    "uint32-out-of-range": (("list", "ndarray", "tensor", "scalar"), "2**31 (a uint32) into int32"),
    "complex-to-real": (("list", "ndarray", "tensor", "scalar"), "1+2j into a real dtype"),
    "negative-into-unsigned": (("list", "ndarray", "tensor", "scalar"), "-1 into uint16/uint32/uint64"),
    "beyond-unsigned-range": (("list", "ndarray", "tensor", "scalar"), "max+1 into uint16/uint32"),
    # found by held-out testing: float(iinfo(int64).max) rounds to 2**63, so a check against
    # it lets exactly 2.0**63 through; every integer dtype's first float past either end
    "float-just-past-int-range": (
        ("list", "ndarray", "tensor", "scalar"),
        "the first float64 past max (2.0**63 for int64) or below min, into each integer dtype",
    ),
    # mutation run of the contract suite: a range check that widens uint64 through
    # int64 wraps 2**63 to -2**63, which int64 holds; no drawn data reached it
    "uint64-beyond-int64": (
        ("list", "ndarray", "tensor", "scalar"),
        "2**63 and 2**64 - 1 (uint64 values) into int64, int32, int8",
    ),
}


def value_case(kind: str, carrier: str, n: int, pick: int = 0) -> tuple[Any, torch.dtype]:
    """``(data, target dtype)`` for a value-range bad-input ``kind`` carried as ``carrier`` ("list", "ndarray", "tensor", "scalar").

    ``pick`` chooses among the kind's variants (target dtype, source dtype) deterministically.
    """

    def carry(values: list[Any], np_dtype: Any, t_dtype: torch.dtype | None) -> Any:
        if carrier == "list":
            return values
        if carrier == "scalar":
            # a 0-d source, the bad value alone as a Python number (the contract suite's mutation
            # run: 0-d sources take a path of their own in a range check)
            return next((v for v in values if not (isinstance(v, (int, float)) and v in (0, 1))), values[0])
        if carrier == "ndarray":
            return np.array(values, dtype=np_dtype)
        return torch.tensor(values, dtype=t_dtype)

    if kind in ("nan-to-int", "inf-to-int"):
        bad = float("nan") if kind == "nan-to-int" else (float("inf") if pick % 2 else float("-inf"))
        src = _FLOAT_CARRIERS[pick % len(_FLOAT_CARRIERS)]
        np_src = np.float16 if src is torch.float16 else np.float32 if src is torch.float32 else np.float64
        return carry([bad] + [1.0] * (n - 1), np_src, src), _INT_TARGETS[pick % len(_INT_TARGETS)]
    if kind == "out-of-range-int":
        narrow = [d for d in _INT_TARGETS if d is not torch.int64 and d is not getattr(torch, "uint64", None)]
        return carry([1] * (n - 1) + [2**40], np.int64, torch.int64), narrow[pick % len(narrow)]
    if kind == "out-of-range-uint8":
        if pick % 2:
            return carry([-1.5] + [1.0] * (n - 1), np.float64, torch.float64), torch.uint8
        return carry([-1] + [1] * (n - 1), np.int16, torch.int16), torch.uint8
    if kind == "int-beyond-int64":
        return [2**64] * n, torch.int64
    if kind == "uint32-out-of-range":
        return carry([2**31] * n, np.uint32, getattr(torch, "uint32", torch.int64)), torch.int32
    if kind == "complex-to-real":
        return carry([1 + 2j] * n, np.complex128, torch.complex64), REAL_TARGETS[pick % len(REAL_TARGETS)]
    if kind == "negative-into-unsigned":
        targets: Sequence[torch.dtype] = UNSIGNED_WIDE_DTYPES or (torch.uint8,)
        if pick % 2:
            return carry([-1.0] * n, np.float64, torch.float32), targets[pick % len(targets)]
        return carry([-1] * n, np.int64, torch.int64), targets[pick % len(targets)]
    if kind == "beyond-unsigned-range":
        targets = [d for d in UNSIGNED_WIDE_DTYPES if d is not getattr(torch, "uint64", None)] or [torch.uint8]
        dt = targets[pick % len(targets)]
        return carry([1] * (n - 1) + [int(torch.iinfo(dt).max) + 1], np.int64, torch.int64), dt
    if kind == "uint64-beyond-int64":
        big = 2**63 if pick % 2 == 0 else 2**64 - 1
        u64 = getattr(torch, "uint64", None)
        values = [1] * (n - 1) + [big]
        if carrier == "tensor" and u64 is None:  # torch without uint64 tensors: the ndarray carries it
            return np.array(values, dtype=np.uint64), (torch.int64, torch.int32, torch.int8)[pick % 3]
        return carry(values, np.uint64, u64), (torch.int64, torch.int32, torch.int8)[pick % 3]
    if kind == "float-just-past-int-range":
        dt = _INT_TARGETS[(pick // 2) % len(_INT_TARGETS)]
        info = torch.iinfo(dt)
        if pick % 2 == 0 or info.min == 0:  # above max: 2**bits (exact in float64), the first float64 >= max + 1
            bad = float(2 ** (info.bits - (0 if info.min == 0 else 1)))
        else:  # below min: min - 1 where float64 holds it, else the next float64 down (-2**63 itself is valid for int64)
            bad = float(info.min - 1)
            if bad >= info.min:
                bad = float(np.nextafter(np.float64(info.min), -np.inf))
        return carry([1.0] * (n - 1) + [bad], np.float64, torch.float64), dt
    raise ValueError(f"{kind!r} is not a value-range bad-input kind; pick one of {sorted(VALUE_KINDS)}")
