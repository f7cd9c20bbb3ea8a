"""b16 - staged contents are built with ``torch.tensor(values, dtype=...)`` instead of the validating H2D helper.

Where: ``buffer_utils._converted`` (used by ``StagedWriteTensor.apply_write`` and
``FusedStagedWriter.apply``).

Change (old -> new)::

    return positions, async_tensor_h2d(values, device=t.gpu.device, dtype=t.gpu.dtype)
    ->
    return positions, torch.tensor(values, dtype=t.gpu.dtype, device=t.gpu.device)  # BUG

Why an engineer writes it: the staged values are a plain list of Python numbers and the target
dtype is one of int32, int64 and float32: ``torch.tensor`` with ``dtype=`` converts them in one
call, without the helper's list scan, range checks and staging pool, which profile as the bulk
of ``apply_write`` for small writes. Every in-range value converts identically (floats truncated
toward zero as before). Out-of-range values are still refused, but torch refuses them with a
``RuntimeError`` ("value cannot be converted to type int32 without overflow"), not the
``ValueError`` / ``OverflowError`` the contract names (NaN into int32 likewise).

Promise broken: docs/contracts.md "staged-write" ("For int32 and int64 a schedule may stage a
value just past the dtype's range ...: refused at staging, or the next ``apply_write`` raises
``ValueError`` or ``OverflowError`` with ``.gpu`` unchanged, and raises again when called again")
and docs/reference.md "Where the reference is stricter than vLLM" (staged contents converted by
the reference's ``async_tensor_h2d``: "a value out of the dtype's range raises at
``apply_write``"); "fused-writes" (a value past int32 in one of two tensors: ``ValueError`` or
``OverflowError``).

Smallest input (CPU)::

    s = StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, [2**31]); s.apply_write()

Reference: ``ValueError: data[0] = 2147483648 is out of range for torch.int32 ...``.
Bug: ``RuntimeError: value cannot be converted to type int32 without overflow`` (``.gpu`` unchanged).
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target
from plumbing import bu_fork, bu_target


def _converted(t: StagedWriteTensor) -> tuple[np.ndarray, torch.Tensor]:
    """``t``'s staged positions, and its staged values on ``.gpu``'s device in its dtype."""
    positions, values = t.staged_positions()
    return positions, torch.tensor(values, dtype=t.gpu.dtype, device=t.gpu.device)  # BUG: was async_tensor_h2d(...)


def target() -> Target:
    return bu_target(
        "b16", "b16_staged_contents_via_torch_tensor", bu_fork("b16", names={"_converted": _converted})
    )
