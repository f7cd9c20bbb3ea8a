"""b10 (CPU): a bool ``NonUvaBuffer``'s device twin is made as uint8.

Where: ``h2d_impl/buffer_utils.py::NonUvaBuffer.__init__`` (every pool slot without UVA, so every pool on a host
without a CUDA device or pinned memory, and ``UvaBackedTensor``'s pool).

Change: a concession to the device kernels ("Triton takes no bool pointers; the runner's kernels load masks as
uint8: keep bool twins as uint8 on the device, the host side stays bool")::

    self._uva = torch.zeros(shape, dtype=dtype, device=device)                                   # reference

    self._uva = torch.zeros(shape, dtype=torch.uint8 if dtype == torch.bool else dtype, device=device)  # bug

``uva(n)`` copies ``.cpu`` (bool) into the twin with ``copy_``, which converts: the values are 1 and 0, but the
view every caller gets is a uint8 tensor, not the pool's dtype. A bool mask used to index (``x[mask]``) becomes
an integer index (gathering rows 1 and 0 instead of selecting), ``~mask`` is 254/255, ``torch.where(mask, ...)``
refuses it, and ``copy_to_gpu`` returns uint8 too. With UVA the slot's view is of the pinned bool tensor itself,
so the two paths of one pool disagree in dtype.

Promise broken: h2d_impl/buffer_utils.py ``NonUvaBuffer``: "``uva(n)`` copies the first ``n`` rows of ``.cpu`` into the
twin and returns that slice"; ``UvaBuffer``: "a device view of the same memory" (same shape and dtype);
docs/contracts.md, pool: "a pool of bool, int8, uint8, int16, float16 or float64 returns its steps' values" and
"every reader reads its own step's rows, shape and values".

Smallest input: ``UvaBufferPool(2, torch.bool).copy_to_uva([True, False])``.
Reference: ``tensor([True, False])``. Bug: ``tensor([1, 0], dtype=torch.uint8)``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _shape, _dtype, long_lived)


def __init__(self: Any, size: Any, dtype: torch.dtype, device: str | torch.device | None = None) -> None:
    shape, dtype = _shape(size), _dtype(dtype)
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    with long_lived():  # state kept across steps: normal tensors under inference_mode too
        self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")
        self.np = self.cpu.numpy()
        # Triton takes no bool pointers: bool twins live as uint8 on the device
        twin_dtype = torch.uint8 if dtype == torch.bool else dtype  # BUG (r58 b10): the view's dtype is not the buffer's
        self._uva = torch.zeros(shape, dtype=twin_dtype, device=device)


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_nonuva_bool_twin_as_uint8",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"NonUvaBuffer": {"__init__": __init__}}),
    )
