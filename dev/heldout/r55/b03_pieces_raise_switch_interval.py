"""b03 (CPU): the serial copy's torch-pieces route lengthens the interpreter's switch interval and never restores it.

Where: ``h2d_impl/h2d.py::_serial_copy`` (the pieces route: host copies of 32,769 elements up to
256 KiB whose conversion numpy cannot do as torch does: float32/float64 into float16 or bfloat16,
float64 into float32, bool sources, bfloat16 and float8 either side; host targets included).

Change: one line before the pieces ("the pieces are many short torch calls on this thread, each
releasing and retaking the GIL: at the default 5 ms switch interval another Python thread takes
the GIL between two pieces and holds it for a time slice, the very wait this route exists to
avoid")::

    _copy_in_pieces(dst, src)                                                 # reference

    sys.setswitchinterval(max(sys.getswitchinterval(), 0.05))                 # bug
    _copy_in_pieces(dst, src)

Values, dtypes and results are the reference's. But ``sys.setswitchinterval`` is process-wide:
after the first such call every thread of the engine (its scheduler, its HTTP front end, a
tokenizer pool) waits up to 50 ms, not 5, for a GIL holder to yield, for the life of the process.

Promise broken: docs/reference.md, Calling contexts: "Process-wide state: a call changes none";
docs/contracts.md, side-effects: "Every call, valid or failing, ... leaves the process-wide state
as it found it ... Python: ... the switch interval"; h2d_impl/h2d.py ``_serial_copy``: "Written here
because torch has no per-call thread count" (the route exists to change nothing process-wide).

Smallest input: ``async_tensor_h2d(np.zeros(32769, dtype=np.float32), dtype=torch.float16, device='cpu');
sys.getswitchinterval()``.
Reference: the interval found (``0.005``). Bug: ``0.05``.
"""

from __future__ import annotations

import sys

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one line added; every other name resolves in the forked module.
# ruff: noqa: F821


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    # many short torch calls: keep the GIL across them rather than yield every 5 ms
    sys.setswitchinterval(max(sys.getswitchinterval(), 0.05))  # BUG (r55 b03): process-wide, never restored
    _copy_in_pieces(dst, src)
    return dst


def target() -> Target:
    f = fork("b03", h2d={"_serial_copy": _serial_copy, "sys": sys})
    return make_target(
        "b03_pieces_raise_switch_interval",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
