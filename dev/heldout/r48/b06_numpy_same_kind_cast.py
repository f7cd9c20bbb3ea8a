"""b06 (CPU): the single-threaded numpy copy made with numpy's ``same_kind`` casting rule instead of ``unsafe``.

Where: ``h2d_impl/h2d.py::_serial_copy`` (every host copy of 32,769 elements up to 256 KiB,
on the wider side, whose dtype pair numpy casts as torch does: ``_NUMPY_CASTS``).

Change (one line)::

    np.copyto(dst.numpy(), src.numpy(), casting="unsafe")     # reference
    np.copyto(dst.numpy(), src.numpy(), casting="same_kind")  # bug: "unsafe" sounded unsafe

``same_kind`` refuses float -> integer and integer/float -> bool casts with ``TypeError``
("Cannot cast array data from dtype('float32') to dtype('int32') according to the rule
'same_kind'"), so valid conversions that validation already allowed fail, at these sizes
only: 32,768 elements or fewer go through torch's ``copy_``, larger payloads through torch's
parallel copy.

Promise broken: docs/reference.md, "Integer targets": "a float goes into an integer dtype as C,
numpy and `Tensor.to` convert it: truncated toward zero"; README, values: "every dtype ...;
sizes across every power of two to 2**20 elements"; docs/reference.md, "anything -> bool"
(h2d_impl/_host.py ``check_representable`` docstring: "anything -> bool ... follow torch
(nonzero is True ...)").

Smallest input: ``async_tensor_h2d(np.arange(32769, dtype=np.float32), dtype=torch.int32, device='cpu')``.
Reference: ``tensor([0, 1, ..., 32768], dtype=torch.int32)``.
Bug: ``TypeError: Cannot cast array data from dtype('float32') to dtype('int32') according to the rule 'same_kind'``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``.

    ``dst`` is a fresh host tensor nobody else holds (no autograd history, no subclass: the
    numpy route bypasses both), ``src`` a host tensor of the same shape. The values are
    ``copy_``'s (tests/test_serial_copy.py compares the bytes over every dtype pair and
    layout; the NaN payload bits of a converting copy may differ, as they do between
    torch's own vector and scalar loops), without an OpenMP region
    (:data:`SERIAL_COPY_MAX_BYTES`): one ``numpy.copyto`` where numpy's cast is torch's
    (:data:`_NUMPY_CASTS`; its floating-point warnings silenced, as torch has none), else
    torch copies of at most :data:`_TORCH_GRAIN` elements each. Conj and neg views and
    zero tensors take torch's own ``copy_`` whole (torch mishandles a one-element copy of a
    neg view into float16). Written here because torch has no per-call thread count
    (``torch.set_num_threads`` is process-wide).
    """
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="same_kind")  # BUG (r48 b06)
        return dst
    _copy_in_pieces(dst, src)
    return dst


def target() -> Target:
    f = fork("b06", h2d={"_serial_copy": _serial_copy})
    return make_target(
        "b06_numpy_same_kind_cast",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
