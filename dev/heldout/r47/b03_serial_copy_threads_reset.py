"""b03 serial_copy_threads_reset (CPU) -- ``h2d._serial_copy``.

What changed: the conversions numpy cannot do (``_copy_in_pieces``: torch copies of at most
32,768 elements) are replaced by one torch copy on a single thread::

    torch.set_num_threads(1)
    try:
        dst.copy_(src)
    finally:
        torch.set_num_threads(os.cpu_count())    # "back to the default"

Realistic: the docstring itself says torch has no per-call thread count; the obvious
"simplification" pins the process-wide count around the copy and restores it to the
machine's core count, not to what the caller had (engines set ``OMP_NUM_THREADS`` /
``torch.set_num_threads`` per worker, docs/gpu.md recommends it).

Promise broken (README, contract ``side-effects``; reference.md, Calling contexts):
"every call, valid or failing, leaves the process as it found it: ... intra-op and
inter-op thread counts"; "no default dtype, grad mode, thread count or random state is
touched".

Smallest input: under ``torch.set_num_threads(1)`` (on a host with more than one core):
``async_tensor_h2d(np.ones(40000, np.float32), device="cpu", dtype=torch.float16)``
(160 KB: the serial route; float32 -> float16 is not a numpy cast): reference leaves
``torch.get_num_threads() == 1``; bug leaves it at ``os.cpu_count()``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _serial_copy(dst, src):
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821
        with np.errstate(all="ignore"):  # noqa: F821
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")  # noqa: F821
        return dst
    import os

    torch.set_num_threads(1)  # noqa: F821
    try:
        dst.copy_(src)
    finally:
        torch.set_num_threads(os.cpu_count() or 1)  # noqa: F821
    return dst


def target() -> Target:
    f = fork("b03", h2d={"_serial_copy": _serial_copy})
    return make_target(
        "b03_serial_copy_threads_reset",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
