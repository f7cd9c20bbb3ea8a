"""b13 (CPU): ``out``'s self-overlap test returns "no overlap" at once when ``out``'s elements need as many bytes as its storage holds.

Where: ``h2d_impl/h2d.py::_may_overlap`` (``_check_out``: every call with ``out``, both entry points).

Change: a shortcut before the sort ("most outs are whole buffers: a tensor whose elements account for
every byte of its storage gives each element its own address; skip the stride walk")::

    reach = 0                                                                     # reference (first line)

    if t.numel() * t.element_size() == t.untyped_storage().nbytes():              # bug (added first)
        return False
    reach = 0

The premise holds only when the elements are distinct: it counts the elements, not the addresses they
reach. A view over a storage of exactly ``numel`` elements can still map several elements to one
address (``torch.zeros(4).as_strided((2, 2), (1, 1))``: elements at 0, 1, 1, 2; or ``torch.zeros(4)[:1]
.expand(4)``). Such an ``out`` passes the check: the as_strided one is written, two values racing for one
element and a storage element that ``out`` does not cover written with ``0``'s neighbour; for the expanded
one torch's own ``copy_`` refuses with a bare ``RuntimeError``. An ``out`` built with
``torch.empty_strided`` (its storage as small as its reach) is still refused.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: ... Refused: layouts whose elements may share an
address (``expand``, overlapping ``as_strided``; ...)" and "ValueError: ... ``out`` requiring grad or with
overlapping memory"; ``_may_overlap``: "True unless the strides provably give every element its own address".

Smallest input: ``s = torch.zeros(4); async_tensor_h2d([[1., 2.], [3., 4.]], out=s.as_strided((2, 2), (1, 1))); s``.
Reference: ``ValueError: out has internally overlapping memory (several elements share an address): ...``;
``s == [0., 0., 0., 0.]``. Bug: returns the view (reading ``[[1., 3.], [3., 4.]]``); ``s == [1., 3., 4., 0.]``.
"""

from __future__ import annotations

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _may_overlap(t: torch.Tensor) -> bool:
    """True unless the strides provably give every element its own address."""
    if t.numel() * t.element_size() == t.untyped_storage().nbytes():  # BUG (r56 b13): counts elements, not addresses
        return False
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def target() -> Target:
    f = fork("b13", h2d={"_may_overlap": _may_overlap})
    return make_target(
        "b13_overlap_check_full_storage_shortcut",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13"),
    )
