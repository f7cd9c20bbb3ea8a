"""b05 (CPU-visible): the piecewise host copy slices with ``narrow``, which does not clamp.

Where: ``h2d_impl/h2d.py``, ``_copy_in_pieces`` (the serial copy of conversions numpy
cannot do: float16/bfloat16/float8/complex sources, bool sources, float64 -> float32, ...).

Change: ``dst[i : i + step].copy_(src[i : i + step])`` ->
``dst.narrow(0, i, step).copy_(src.narrow(0, i, step))``.

Why plausible: ``narrow`` is the "cheap view, no Python slice object" spelling and reads
as the same thing. Unlike slicing it raises when ``i + step`` passes the end, so the last
piece fails whenever the row count is not a multiple of ``step``.

Promise broken: README values: "sizes across every power of two to 2**20 elements and row
counts off block boundaries"; a valid call must not raise (errors are ``TypeError`` /
``ValueError`` naming an argument, never a bare ``RuntimeError``).

Smallest input: ``async_tensor_h2d(torch.zeros(32769, dtype=torch.float16), dtype=torch.float32, device='cpu')``
(32,769 elements: one past torch's grain; 131 KiB, under the serial copy's 256 KiB).
Reference: ``tensor([0., 0., ..., 0.])`` of 32,769 float32 zeros.
Bug: ``RuntimeError: start (32768) + length (32768) exceeds dimension size (32769).``
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _copy_in_pieces(dst: torch.Tensor, src: torch.Tensor) -> None:
    n = dst.numel()
    if n <= _TORCH_GRAIN:  # noqa: F821
        dst.copy_(src)
        return
    rows = dst.shape[0]
    per_row = n // rows
    if per_row > _TORCH_GRAIN:  # noqa: F821
        for i in range(rows):
            _copy_in_pieces(dst[i], src[i])
        return
    step = _TORCH_GRAIN // per_row  # noqa: F821
    for i in range(0, rows, step):
        dst.narrow(0, i, step).copy_(src.narrow(0, i, step))  # BUG: narrow does not clamp the last piece


def _fork() -> Fork:
    return fork("b05", h2d={"_copy_in_pieces": _copy_in_pieces})


def target() -> Target:
    return fork_target_full("b05_pieces_narrow_tail", _fork())
