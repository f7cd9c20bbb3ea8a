"""b20 chunk_strides_unreversed (GPU only) -- ``_staging._contiguous_strides``.

What changed: the C-order strides of a staging slice are returned in the order the loop
built them, innermost first (the final ``reversed`` was lost in a rewrite)::

    return tuple(reversed(strides))     # reference: (3, 2) -> (2, 1)
    return tuple(strides)               # bug:       (3, 2) -> (1, 2)

Every chunk and block view (``_Chunk.tensor``: ``typed.as_strided(shape,
_contiguous_strides(shape), ...)``) of a 2-D or higher payload then has the wrong strides:
with more rows than columns its elements overlap (``(2, 0)`` and ``(0, 1)`` share an
address), otherwise they spread past the slice into the next call's bytes. The host copy
into it does not raise (torch cannot prove the overlap), so the DMA sends wrong values.
1-D payloads (one stride) are unaffected. (Plumbing: ``_Chunk.tensor`` is rebound to see
the changed helper, and the pool's ``_alloc`` to make that chunk; no other change.)

Why GPU only: the staging chunks serve CUDA targets alone; on a CPU-only host every
result is made by ``_stage`` (``torch.empty`` contiguous), so public calls behave as the
control's (repro.py).

Promise broken (README ``values``: "result equals ``data`` converted to the resolved dtype,
bit for bit, same shape"; reference.md "On CUDA data is staged (converted on the host into
pinned memory) and copied").

Smallest GPU input: ``async_tensor_h2d([[1, 2], [3, 4], [5, 6]], device="cuda:0")``:
reference ``[[1, 2], [3, 4], [5, 6]]``; bug ``[[1, 2], [3, 4], [2, 6]]`` (the staging
view's element (2, 0) is element (0, 1)'s address).
"""

from __future__ import annotations

import functools

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


@functools.lru_cache(maxsize=1024)
def _contiguous_strides(shape):
    """C-order strides of ``shape``, in elements."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)


class _Chunk(_staging._Chunk):
    pass


_Chunk.tensor = rebind(_staging._Chunk.tensor, _staging, _contiguous_strides=_contiguous_strides)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool._alloc = rebind(_staging.StagingPool._alloc, _staging, _Chunk=_Chunk)


def target() -> Target:
    f = fork("b20", _staging={"_contiguous_strides": _contiguous_strides, "StagingPool": StagingPool})
    return make_target(
        "b20_chunk_strides_unreversed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b20"),
    )
