"""b06 (CPU): the piecewise serial copy flattens both sides with ``view(-1)``: a non-contiguous source of 32,769+ elements raises.

Where: ``h2d_impl/h2d.py::_copy_in_pieces`` (the serial host copy of conversions numpy does not
make: bool sources, float16/bfloat16/float8/complex conversions, float64 -> float32), reached
from 32,769 elements up to 256 KiB on the wider side.

Change (the row recursion replaced by a flat loop)::

    # reference: rows of the leading dimension, recursively (any strides)
    d, s = dst.view(-1), src.view(-1)                       # bug: "simpler: flat grains"
    for i in range(0, d.numel(), _TORCH_GRAIN):
        d[i : i + _TORCH_GRAIN].copy_(s[i : i + _TORCH_GRAIN])

Correct for a contiguous source (``dst`` is always fresh and contiguous), so contiguous
inputs, lists and arrays copied by numpy are unchanged. A transposed, sliced, expanded or
otherwise non-contiguous tensor source has no flat view: ``src.view(-1)`` raises
``RuntimeError: view size is not compatible with input tensor's size and stride`` (not a type
the contracts accept, naming no argument). ``reshape(-1)`` was meant.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring, Args: "a CPU ``torch.Tensor`` in
any strided layout"; README, values: "every dtype, input kind and layout ... sizes across every
power of two to 2**20 elements"; docs/reference.md: "a dense permuted tensor ... contiguous".

Smallest input: ``async_tensor_h2d(torch.zeros(2, 16385).t(), dtype=torch.float16, device='cpu')``.
Reference: a float16 tensor of shape ``(16385, 2)``, zeros. Bug: ``RuntimeError: view size is not
compatible with input tensor's size and stride ...``.
"""

from __future__ import annotations

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _copy_in_pieces(dst: torch.Tensor, src: torch.Tensor) -> None:
    d, s = dst.view(-1), src.view(-1)  # BUG (r51 b06): view, not reshape (and not the row recursion)
    for i in range(0, d.numel(), _TORCH_GRAIN):  # noqa: F821
        d[i : i + _TORCH_GRAIN].copy_(s[i : i + _TORCH_GRAIN])  # noqa: F821


def target() -> Target:
    f = fork("b06", h2d={"_copy_in_pieces": _copy_in_pieces})
    return make_target(
        "b06_pieces_flat_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
