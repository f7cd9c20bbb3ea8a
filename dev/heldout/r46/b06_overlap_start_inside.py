"""b06 (CPU): the data/out overlap test only asks whether ``data`` starts inside ``out``.

Where: ``h2d._shares_memory`` (the "out shares memory with data" refusal of ``_prepare``).
The reference intersects the two half-open byte spans, ``alo < bhi and blo < ahi``. The
bug tests one endpoint, ``blo <= alo < bhi`` ("data is a slice inside out's buffer"), so an
``out`` that starts inside ``data``'s span is not seen.

Why realistic: interval intersection written as "the start of one lies in the other", the
case the developer had in mind (a staging slice of a persistent buffer). torch's own
``copy_`` catches the overlap of two contiguous views (with a ``RuntimeError``, not the
documented ``ValueError``), but not a strided one: then the copy reads elements it has
already overwritten.

Smallest input: ``b = torch.arange(8.0); async_tensor_h2d(b[0:8:2], out=b[2:6])``.
Reference: ``ValueError: out shares memory with data``. Bug: returns ``out`` holding
``[0., 0., 4., 6.]`` where the data was ``[0., 2., 4., 6.]`` (silently wrong); with
``b[0:4]`` into ``b[2:6]`` the bug raises torch's ``RuntimeError``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _shares_memory(a, b):
    """Whether tensor ``a`` and host tensor ``b`` may touch the same host bytes."""
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return blo <= alo < bhi  # BUG: was `alo < bhi and blo < ahi`


def target() -> Target:
    f = fork("b06", h2d={"_shares_memory": _shares_memory})
    return make_target(
        "b06_overlap_start_inside",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
