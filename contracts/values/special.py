"""``values`` for the special floats (signed zeros, the smallest subnormal, the largest finite value, infinities, NaN) as
the only value of lists, tuples, arrays and tensors of 1, 3 and 8,193 elements: a table."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.calling import domain_kwargs
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device
from h2d_contracts.harness.target import Target

from .checks import check_values

#: Special values of the float dtypes: signed zeros, the smallest subnormal, the largest finite value, infinities,
#: NaN. A list made of one of them only is where "all zeros" or "all equal" shortcuts live.
SPECIAL_FLOATS = (
    -0.0,
    0.0,
    5e-324,
    -5e-324,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
)


@prop("values", table=True)
def prop_values_special_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every special float (signed zeros, subnormal, extremes, infinities, NaN) as the only value of a flat
    list, a nested list, a tuple, an ndarray and a tensor, of 1, 3 and 8,193 elements, into float16, bfloat16,
    float32, float64 and the list's own dtype: bit for bit (NaN positions as NaN after a conversion)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")
    rows = Rows("values special table")
    for v_i, value in enumerate(SPECIAL_FLOATS):
        for n in (1, 3, 8193):
            for kind in kinds:
                for d_i, dtype in enumerate((None, torch.float16, torch.bfloat16, torch.float32, torch.float64)):
                    if (v_i + d_i + n) % 2 and n == 8193:
                        continue  # the large size on every other (value, dtype): each still meets it
                    if kind == "list":
                        shapes = [[value] * n, tuple([value] * n)] + ([[[value]] * n] if n < 8193 else [])
                        for data in shapes:
                            kw = domain_kwargs(
                                target,
                                data,
                                {"device": device} if dtype is None else {"device": device, "dtype": dtype},
                            )
                            rows.row(check_values, target, data, kw)
                        continue
                    source = np.full(n, value, dtype=np.float64)
                    array: Any = source if kind == "ndarray" else torch.from_numpy(source.copy())
                    kw = domain_kwargs(
                        target, array, {"device": device} if dtype is None else {"device": device, "dtype": dtype}
                    )
                    rows.row(check_values, target, array, kw)
    rows.finish()


#: Sizes for the numpy-error-state table: one element, past 4,096, and on both sides of torch's 32,768-element grain
#: (the reference copies past it with numpy, its floating-point warnings silenced).
ERROR_STATE_SIZES = (1, 4097, 32769, 40000)
#: A float32 signalling NaN's bits (quiet bit clear, payload 0x200000).
_SNAN32 = 0x7FA00000


@check("values")
def check_values_under_numpy_errors(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """values: a valid call made under ``np.errstate(all="raise")`` with every warning an error still returns the
    reference conversion: the caller's numpy error state and warning filters are the caller's, and a copy has no
    floating-point exceptions of its own (torch's has none; a numpy cast of a NaN into bool or of a large float64
    into float32 warns, or raises under that state: held-out round r40 dropped the reference's ``np.errstate``)."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        check_values(target, data, kwargs)


@prop("values", table=True)
def prop_values_numpy_error_state(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: NaNs (quiet and signalling), infinities, values past float32 and subnormals, as float32 and float64
    ndarrays and tensors of 1 to 40,000 elements, into bool, float16, bfloat16 and float32, each call made with numpy
    errors raising and warnings as errors (a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["ndarray", "tensor"], "values")
    rows = Rows("values numpy error state")
    for n in ERROR_STATE_SIZES:
        snan = np.full(n, _SNAN32, dtype=np.uint32).view(np.float32)
        special = np.resize(np.array([np.nan, np.inf, -np.inf, 1e300, 5e-324, 1.5], dtype=np.float64), n)
        for source, dtypes in (
            (snan, (torch.bool, torch.float16, torch.bfloat16)),
            (special, (torch.bool, torch.float16, torch.bfloat16, torch.float32)),
        ):
            for kind in kinds:
                data: Any = source if kind == "ndarray" else torch.from_numpy(source.copy())
                for dtype in dtypes:
                    kw = domain_kwargs(target, data, {"device": device, "dtype": dtype})
                    rows.row(check_values_under_numpy_errors, target, data, kw)
    rows.finish()
