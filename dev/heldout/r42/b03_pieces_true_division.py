"""b03 (CPU): host copies outside numpy's cast table raise ``TypeError`` between 32,769 elements and 256 KiB.

Where: h2d_impl/h2d.py, ``_copy_in_pieces``.
Change: ``per_row = n // rows`` -> ``per_row = n / rows``.
Why plausible: ``n`` is exactly ``rows * per_row``, so true division "cannot lose anything" and
    reads more naturally; but it makes ``per_row`` a float, so ``step = _TORCH_GRAIN // per_row``
    is a float too and ``range(0, rows, step)`` refuses it.
Promise broken: README values: "every dtype, input kind and layout ... sizes across every power
    of two to 2**20 elements"; contracts.md values: "A valid call that raises ... fails";
    ``_serial_copy``'s docstring: "The values are ``copy_``'s".
Smallest input:
    async_tensor_h2d(torch.zeros(40000, dtype=torch.float16), device="cpu", dtype=torch.float32)
Reference: a float32 tensor of 40,000 zeros. Bug: ``TypeError: 'float' object cannot be interpreted
    as an integer``. Only copies outside numpy's cast table (to or from float16, bfloat16 or
    float8, from bool, bfloat16 -> bfloat16 ...) with more than 32,768 elements and at most
    256 KiB on the wider side take this path (``torch.zeros(40000, dtype=torch.bool)`` into
    int32, a (200, 200) float16 tensor into float32 ...); smaller and larger payloads, and every
    pair numpy casts (int32 -> float32, ...), are right.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def _copy_in_pieces(dst: torch.Tensor, src: torch.Tensor) -> None:
    n = dst.numel()
    if n <= _TORCH_GRAIN:  # noqa: F821 (the fork's constant)
        dst.copy_(src)
        return
    rows = dst.shape[0]
    per_row = n / rows  # BUG: true division: a float per_row, so a float step below
    if per_row > _TORCH_GRAIN:  # noqa: F821
        for i in range(rows):
            _copy_in_pieces(dst[i], src[i])
        return
    step = _TORCH_GRAIN // per_row  # noqa: F821
    for i in range(0, rows, step):
        dst[i : i + step].copy_(src[i : i + step])


def target() -> Target:
    return fork_target_full("b03_pieces_true_division", fork("b03", h2d={"_copy_in_pieces": _copy_in_pieces}))
