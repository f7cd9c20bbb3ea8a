"""``values`` for the special floats (signed zeros, the smallest subnormal, the largest finite value, infinities, NaN) as
the only value of lists, tuples, arrays and tensors of 1, 3 and 8,193 elements: a table."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.calling import domain_kwargs
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
