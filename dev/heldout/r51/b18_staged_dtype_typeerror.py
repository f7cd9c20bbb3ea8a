"""b18 (CPU): an unsupported ``StagedWriteTensor`` dtype raises ``TypeError`` instead of vLLM's ``ValueError``.

Where: ``h2d_impl/buffer_utils.py::_dtype`` (the ``allowed`` branch: only
``StagedWriteTensor`` passes an allow-list).

Change (one exception class)::

    raise ValueError(f"Unsupported dtype {dtype}: should be one of {list(allowed)}")   # reference, as vLLM
    raise TypeError(f"Unsupported dtype {dtype}: should be one of {list(allowed)}")    # bug: "a wrong dtype is a TypeError, as everywhere else"

A harmonisation that looks right: the rest of the reference raises ``TypeError`` for a dtype
that is not a torch dtype or one it cannot copy. But ``StagedWriteTensor`` mirrors vLLM
0.33.0, whose constructor raises ``ValueError`` for a torch dtype outside its supported list,
and callers written against vLLM (``except ValueError``: fall back to a plain tensor for
float64 or bool tables) now see the exception escape. A non-dtype (``"int32"``) is still
``TypeError``; the three supported dtypes are unchanged.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring, Raises: "ValueError:
an unsupported ``dtype`` (as vLLM's)"; docs/contracts.md, staged-write: "A dtype outside int32,
int64 and float32 raises `ValueError` (table `prop_staged_dtypes`)".

Smallest input: ``StagedWriteTensor(2, torch.float64, 'cpu')``.
Reference: ``ValueError: Unsupported dtype torch.float64: should be one of [torch.int32,
torch.int64, torch.float32]``. Bug: ``TypeError`` with the same message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _dtype(dtype: Any, allowed: Sequence[torch.dtype] | None = None) -> torch.dtype:
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype, got {type(dtype).__name__}")
    if allowed is not None and dtype not in allowed:
        raise TypeError(f"Unsupported dtype {dtype}: should be one of {list(allowed)}")  # BUG (r51 b18): TypeError
    return dtype


def target() -> Target:
    f = fork("b18")
    return make_target(
        "b18_staged_dtype_typeerror",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18", names={"_dtype": _dtype}),
    )
