"""uint16/uint32/uint64 dropped from ``SUPPORTED_DTYPES``.

What changed: ``_host.SUPPORTED_DTYPES`` listed torch's uint16, uint32 and uint64 where
the running torch has them. The change leaves them out: "torch calls them 'limited
support' dtypes (no arithmetic, no comparisons on the CPU); refuse them up front with a
clear TypeError instead of failing somewhere inside torch".

Why an engineer writes it: torch's own documentation warns about these dtypes, and the
engine never produces them, so refusing them early looks like a robustness fix.

Promise broken: contracts "values" (``prop_values_wide_numpy`` and ``prop_values_product``:
every target dtype, uint16/32/64 included; ``prop_values_dtype_matrix``) and
docs/reference.md ("dtype: ``dtype=``, else ``out.dtype``, else the data's own"): a uint16
tensor as data, ``dtype=torch.uint32`` or a uint64 ``out`` now raise TypeError. (A uint16
*ndarray* still passes: only tensors and dtype arguments are checked against the set.)

Smallest input: ``async_tensor_h2d(torch.tensor([1], dtype=torch.uint16), device="cpu")``:
reference ``tensor([1], dtype=torch.uint16)``; bug ``TypeError: data has dtype
torch.uint16, which the reference cannot copy``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES

from ._common import fork, fork_target

# BUG: torch's "limited support" unsigned dtypes refused up front
_WIDE_UNSIGNED = {getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)}
NARROWED_DTYPES = frozenset(SUPPORTED_DTYPES - _WIDE_UNSIGNED)


def target() -> Target:
    return fork_target(
        "b10_wide_unsigned_unsupported", fork("b10", _host={"SUPPORTED_DTYPES": NARROWED_DTYPES})
    )
