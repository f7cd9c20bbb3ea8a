"""b07 (CPU-visible, h2d.py ``_serial_copy``): the serial host copy calls ``np.copyto`` with its default casting rule.

What changed: ``np.copyto(dst.numpy(), src.numpy(), casting="unsafe")`` became
``np.copyto(dst.numpy(), src.numpy())``.

Why an engineer would write it: "``unsafe`` looks alarming and the values were validated
already (``check_representable``); let numpy use its default". numpy's default for
``copyto`` is ``casting="same_kind"``, which refuses float -> integer, integer -> bool and
signed -> unsigned casts. The numpy route runs only for conversions in ``_NUMPY_CASTS``
whose destination holds more than 32,768 elements and at most 256 KiB (e.g. 32,769 to
65,536 four-byte elements), so small and large payloads still work and the failure is a
size window.

Promise broken: valid calls succeed with the converted values: "a float goes into an
integer dtype ... truncated toward zero" (docs/reference.md "Integer targets"); contracts.md
values ("every dtype ... sizes across every power of two"). The bug raises ``TypeError`` for
valid calls of those sizes (host targets and the CPU-platform variant; on a GPU the small
staging path copies through the same function).

Smallest input: ``async_tensor_h2d(np.full(32769, 1.5, np.float32), dtype=torch.int32, device="cpu")``.
Reference: 32,769 ones (int32). Bug: ``TypeError: Cannot cast array data from
dtype('float32') to dtype('int32') according to the rule 'same_kind'``.
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``."""
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy())  # BUG: casting="unsafe" dropped: numpy's default is "same_kind"
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def _fork() -> Fork:
    return fork("b07", h2d={"_serial_copy": _serial_copy})


def target() -> Target:
    f = _fork()
    return make_target(
        "b07_copyto_default_casting",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
