"""b05 (CPU and GPU): the range check runs after the copy is issued, so a refused call has written ``out``.

The change: ``check_representable(source, dtype)`` moved from the end of ``_prepare``
(validation, before anything is written) to ``_async_h2d``, right after the copy into the
result or ``out`` has been issued (one line moved; in this module ``_prepare`` is the
reference's with its ``check_representable`` global bound to a no-op, and ``_async_h2d`` a
copy that calls the real check after dispatch).

Why an engineer writes it: on a GPU the host-side range scan of a large payload (a pass
over every element) then overlaps the non-blocking DMA instead of delaying it; the call
still raises ``ValueError`` for out-of-range values.

What breaks: "A failed call writes nothing" / "On any exception nothing has been written:
``out`` is untouched" (docs/reference.md, ``async_tensor_h2d``'s docstring; the bad-input and
input-untouched contracts). ``async_tensor_h2d([300], out=torch.zeros(1, dtype=torch.uint8))``
raises ``ValueError`` in both, but here ``out`` already holds 44 (300 wrapped).
The CPU variant is the reference's.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import _host

from ._common import Raw, _staging, fork, fork_target


def _async_h2d(data, device, dtype, out, *, min_block=_staging.MIN_BLOCK_BYTES, small_max=_staging.SMALL_MAX_BYTES):
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)  # no range check in it any more
    if target.type == "cpu":
        if out is not None:
            result = out.copy_(source)
        else:
            result = _stage(source, dtype, pin=False)
    else:
        count = _cuda_device_count()
        if count <= 1 or target.index == torch.cuda.current_device():
            result = _to_device(
                data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
            )
        else:
            with torch.cuda.device(target):
                result = _to_device(
                    data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
                )
    _range_check(source, dtype)  # BUG: moved here from _prepare, to overlap the DMA: out is already written
    return result


def _no_check(source, dtype):
    return None


def target():
    f = fork(
        "b05",
        h2d={"_async_h2d": _async_h2d, "check_representable": _no_check, "_range_check": Raw(_host.check_representable)},
    )
    return fork_target("b05-range-check-after-write", f, variant=False)
