"""b21 (CPU): ``CpuGpuBuffer``'s table of dtypes with a numpy view lacks uint16/uint32/uint64.

The change: ``buffer._NUMPY_DTYPES`` (the dtypes for which ``.np`` can be made) was
written out as the classic torch<->numpy pairs, without the unsigned types torch added
in 2.3 (``torch.uint16``/``uint32``/``uint64``). ``__init__`` is the reference's, rebound to
read the changed table.

Why an engineer writes it: the table was copied from an older torch->numpy mapping
(torch 2.2 had no uint16-64 tensors), and the engine's buffers are int32/int64/float32.

What breaks: ``with_numpy=True`` raises ``ValueError`` only for dtypes numpy cannot
represent (bfloat16, float8: docs/reference.md, buffer contract). ``CpuGpuBuffer(4,
dtype=torch.uint32, device="cpu")`` raises ``ValueError`` ("has no numpy equivalent")
although ``.cpu.numpy()`` is a ``uint32`` array.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind

_NUMPY_DTYPES = frozenset(  # BUG: no torch.uint16 / uint32 / uint64 (a pre-2.3 torch<->numpy table)
    {
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
    }
)


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __init__ = rebind(_buffer.CpuGpuBuffer.__init__, _buffer, _NUMPY_DTYPES=_NUMPY_DTYPES)


def target():
    return make_target("b21-buffer-numpy-no-uint", buffer_cls=CpuGpuBuffer)
