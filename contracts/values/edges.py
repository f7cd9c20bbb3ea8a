"""``values`` tables at the ends of integer ranges, over every Python leaf type of a list, and over structured fields.

Three deterministic tables (every row every run), each for a kind of mistake that drawn values reach only by luck:

- :func:`prop_values_int_edges`: integer sources of every width and signedness (arrays and tensors, and lists of
  Python ints) into every integer target dtype, with the ends of the range both dtypes hold, one inside them, and
  2**53 + 1 where it fits (the first integer float64 cannot carry). An integer conversion routed through float64
  rounds 2**63 - 1 up to 2**63 and refuses it, or changes 2**53 + 1 (held-out round r42 took integer sources for
  floats: ``is_floating_point`` without its call).
- :func:`prop_values_list_leaf_kinds`: flat and nested lists and tuples of bools, ints, floats and complex numbers,
  alone and mixed, with no ``dtype`` (torch's inference decides: complex64 for complex numbers under the float32
  default) and with one (held-out round r42 inferred a flat list of Python complex numbers as a real dtype).
- :func:`prop_values_fields`: a field of every numpy dtype torch takes, out of a structured array whose other field
  sits before it (a stride that is not a multiple of the field's item size, or is but not of its alignment), by
  ``device=`` and ``dtype=`` (held-out round r43 tested strides against numpy's alignment, half a complex's size).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, require_device
from h2d_contracts.harness.target import Target

from .checks import check_values

__all__ = ["FIELD_DTYPES", "INT_SOURCES", "LEAF_LISTS", "int_edge_values"]

#: Integer source dtypes of the edges table: numpy's, every width and signedness (torch tensors made from them).
INT_SOURCES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
#: Integer target dtypes of the edges table.
INT_TARGETS = (
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint16,
    torch.uint32,
    torch.uint64,
)


#: The C-named numpy integer types of the 64-bit sources (``np.longlong``, ``np.ulonglong``): each a class of its own
#: beside ``np.int64``/``np.uint64`` on Linux (numpy 2), so a test by class meets one and not the other.
_C_NAMED: dict[Any, Any] = {np.int64: np.longlong, np.uint64: np.ulonglong}


def int_edge_values(lo: int, hi: int) -> list[int]:
    """The ends of ``[lo, hi]``, one inside each, 0, and +-(2**53 + 1) where they fall inside (Python ints)."""
    values = {lo, hi, min(lo + 1, hi), max(hi - 1, lo), 0}
    values |= {v for v in (2**53 + 1, -(2**53 + 1)) if lo <= v <= hi}
    return sorted(values)


def _range(dtype: Any) -> tuple[int, int]:
    info = np.iinfo(dtype) if isinstance(dtype, type) else torch.iinfo(dtype)
    return int(info.min), int(info.max)


@prop("values", table=True)
def prop_values_int_edges(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: integer arrays, tensors and lists of Python ints (flat and nested) at the ends of the range their dtype
    and the target dtype both hold, into every integer dtype, by ``dtype=`` (and their own dtype by ``device=``, with
    each end as a numpy scalar too), and lists mixing ints past 2**53 with floats into int64 (a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    rows = Rows("values integer edges")
    for source in INT_SOURCES:
        s_lo, s_hi = _range(source)
        own = np.array(int_edge_values(s_lo, s_hi), dtype=source)
        for payload in (own, torch.from_numpy(own.copy())):
            rows.row(check_values, target, payload, {"device": device})
        # each edge as a numpy scalar (0-d data: held-out round r51 made them tensors by torch.as_tensor, which takes
        # no uint64 past int64's range), under its own name and its C name (np.ulonglong is not np.uint64's class)
        for scalar_type in dict.fromkeys((source, _C_NAMED.get(source, source))):  # in this order, once each
            for v in (s_lo, s_hi):
                rows.row(check_values, target, scalar_type(v), {"device": device})
        for dtype in INT_TARGETS:
            t_lo, t_hi = _range(dtype)
            lo, hi = max(s_lo, t_lo), min(s_hi, t_hi)
            if lo > hi:
                continue
            values = np.array(int_edge_values(lo, hi), dtype=source)
            for payload in (values, torch.from_numpy(values.copy())):
                rows.row(check_values, target, payload, {"device": device, "dtype": dtype})
    for dtype in INT_TARGETS:  # Python ints: no source dtype, the target's own range, flat and nested
        flat = int_edge_values(*_range(dtype))
        # nested: a column and two rows (held-out round r50 rebuilt ints past int64 from the flat leaves, losing the
        # nesting; only uint64's edges reach 2**63)
        half = len(flat) // 2
        for data in (flat, [[v] for v in flat], [flat[:half], flat[half : 2 * half]]):
            rows.row(check_values, target, data, {"device": device, "dtype": dtype})
    # ints a float64 cannot carry beside a float, into int64: numpy builds such a list as float64, so 2**53 + 1 came out
    # 2**53 (found by held-out round r57's author in the reference; torch.tensor keeps each int exact)
    mixed: list[Any] = [[2**53 + 1, 0.5], [[2**63 - 1], [-1.5]], [[-(2**53) - 1, 2.0]]]
    for data in mixed:
        rows.row(check_values, target, data, {"device": device, "dtype": torch.int64})
    rows.finish()


#: Lists of every Python leaf type, alone and mixed, flat and nested, and a tuple (no dtype given: torch infers it).
LEAF_LISTS: tuple[Any, ...] = (
    [True, False],
    [1, -2],
    [1.5, -0.0],
    [1 + 2j, 3j],
    [-0.0j, complex(float("inf"), -1)],
    [1, 2.5],
    [True, 2],
    [1, 2j],
    [2.5, 1j],
    [True, 1j],
    [[1 + 2j], [3j]],
    [[1, 2], [3.5, 4]],
    [[True], [1j]],
    (1j, 2),
    [(1 + 1j, 2)],
)


def typed_leaf_lists() -> list[Any]:
    """Lists whose leaves carry a dtype of their own and which ``torch.tensor`` refuses (tensors of several elements, a
    0-d array beside a number): float64 and int16 tensors, int16 and float32 arrays, a 0-d float64 array beside a float.
    Their dtype is numpy's for the list, the leaves' own (held-out round r57 took the plain-number rules there: float64
    tensors became float32)."""
    return [
        [torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64)],
        [torch.tensor([1, 2], dtype=torch.int16), torch.tensor([3, 4], dtype=torch.int16)],
        [np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)],
        [np.array([0.1, 0.2], dtype=np.float32), np.array([0.3, 0.4], dtype=np.float32)],
        [np.array(0.1), 0.5],
    ]


@prop("values", table=True)
def prop_values_list_leaf_kinds(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: lists of bools, ints, floats and complex numbers, alone and mixed, flat, nested and as tuples, with no
    ``dtype`` (torch's inference) and into complex128 and float64 where the values allow, and lists of typed leaves
    ``torch.tensor`` refuses (:func:`typed_leaf_lists`; a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    rows = Rows("values list leaf kinds")
    complex_leaf = (complex, np.complexfloating)
    for data in LEAF_LISTS:
        flat = list(np.asarray(data, dtype=object).reshape(-1))
        routes: list[dict[str, Any]] = [{"device": device}, {"device": device, "dtype": torch.complex128}]
        if not any(isinstance(v, complex_leaf) for v in flat):
            routes.append({"device": device, "dtype": torch.float64})
        for kwargs in routes:
            rows.row(check_values, target, data, kwargs)
    for data in typed_leaf_lists():
        rows.row(check_values, target, data, {"device": device})
    rows.finish()


#: The field dtypes of :func:`prop_values_fields`: every numpy dtype torch has, complex ones included (their alignment
#: is half their item size).
FIELD_DTYPES = (
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
)


@prop("values", table=True)
def prop_values_fields(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: a field of each numpy dtype torch takes, out of structured arrays whose other field (one byte, or as
    wide as half the field) sits before it, by ``device=`` and into float64 or complex128 (a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    rows = Rows("values structured fields")
    for field in FIELD_DTYPES:
        item = np.dtype(field).itemsize
        for before in ("i1", f"V{max(1, item // 2)}"):
            rec = np.zeros(3, dtype=[("pad", before), ("x", field)])
            rec["x"] = np.array(
                [1, 0, 1] if field is np.bool_ else [1, -2, 3] if np.dtype(field).kind != "u" else [1, 2, 3]
            )
            if np.dtype(field).kind == "c":
                rec["x"] = rec["x"] * (1 + 1j)
            wide = torch.complex128 if np.dtype(field).kind == "c" else torch.float64
            for kwargs in ({"device": device}, {"device": device, "dtype": wide}):
                rows.row(check_values, target, rec["x"], kwargs)
    rows.finish()
