"""A channels-last 4-D tensor is copied into a channels-last result: not contiguous.

``_stage`` (the host copy that makes a host target's result) "keeps NHWC images NHWC, so
the copy is a straight memcpy": when the source is a 4-D tensor contiguous in
``torch.channels_last``, the destination is allocated with that memory format. The values
and shape are right but the result's strides are ``(H*W*C, 1, W*C, C)``; documented: a
result made without ``out`` is contiguous, whatever the input's layout. Other layouts
(transposed, sliced, Fortran-order arrays) are unaffected; the CUDA path does not use
``_stage``.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl.h2d import _host_copy

from ._common import make_target
from ._patch import entry_points


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """The reference's ``_stage`` allocating channels-last for channels-last 4-D sources."""
    fmt = (
        torch.channels_last  # BUG: the result must be contiguous
        if source.dim() == 4 and not source.is_contiguous() and source.is_contiguous(memory_format=torch.channels_last)
        else torch.contiguous_format
    )
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin, memory_format=fmt)
    return _host_copy(staging, source)


def target():
    fn, cpu = entry_points(stage=_stage)
    return make_target("b10-channels-last-kept", fn=fn, cpu_variant=cpu)
