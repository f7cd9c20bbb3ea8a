"""b04 (CPU-visible, h2d.py ``_copy_in_pieces``): the serial host copy cuts both tensors flat with ``.view(-1)``; a non-contiguous source of 32,769..65,536 elements that needs a conversion numpy cannot do raises RuntimeError.

What changed: ``_copy_in_pieces`` no longer walks rows of the leading dimension
(recursing into rows longer than the grain); it views ``dst`` and ``src`` flat with
``.view(-1)`` and copies pieces of exactly ``_TORCH_GRAIN`` elements.

Why an engineer would write it: the row walk leaves pieces of uneven size (up to
``per_row - 1`` elements of each grain unused) and recurses; flat pieces are simpler and
every piece is exactly one grain. ``dst`` is always the reference's own contiguous
staging, and the hot path's sources (lists, C-order arrays, contiguous tensors) are
contiguous too, so ``view(-1)`` works in every test of the fast path. The docstring of
``_serial_copy`` only promises "``src`` a host tensor of the same shape", not a
contiguous one: a transposed tensor or a Fortran-order array is a strided ``src``, and
``view`` refuses it.

Promise broken: ``async_tensor_h2d`` docstring: "data: ... a ``numpy.ndarray`` in any
layout (... Fortran order ...), or a CPU ``torch.Tensor`` in any strided layout";
README contract ``values``: "every dtype, input kind and layout"; docs/reference.md
"Inputs: ... CPU tensors in any strided layout".

Smallest input: ``async_tensor_h2d(torch.arange(40000, dtype=torch.float32).reshape(200,
200).t(), dtype=torch.float16, device='cpu')`` (also a 200x200 Fortran-order float32
array into float16, or float32 -> bfloat16; float32 -> float16 is not one of numpy's
casts in ``_NUMPY_CASTS``, and 40,000 elements of at most 4 bytes are under 256 KiB).

Reference result: the transposed values as float16, shape (200, 200), contiguous.
Bug result: ``RuntimeError: view size is not compatible with input tensor's size and
stride`` (contiguous sources, and sizes outside the window, are still right).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def _copy_in_pieces(dst: torch.Tensor, src: torch.Tensor) -> None:
    """``dst.copy_(src)`` as copies of at most :data:`_TORCH_GRAIN` elements each."""
    n = dst.numel()
    if n <= _TORCH_GRAIN:
        dst.copy_(src)
        return
    # BUG: was a walk over rows of the leading dimension (recursing into long rows); flat
    # pieces of exactly one grain, through view(-1), which refuses a non-contiguous src
    flat_dst, flat_src = dst.view(-1), src.view(-1)
    for i in range(0, n, _TORCH_GRAIN):
        flat_dst[i : i + _TORCH_GRAIN].copy_(flat_src[i : i + _TORCH_GRAIN])


def target() -> Target:
    f = fork("b04", h2d={"_copy_in_pieces": _copy_in_pieces})
    return make_target(
        "b04_pieces_flat_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
