"""b01 (CPU): the overlap test of ``out`` resets its reach per dimension instead of accumulating it.

Where: h2d.py, ``_may_overlap``.
Change: ``reach += stride * (size - 1)`` -> ``reach = stride * (size - 1)``.
Why plausible: a tidy-up of the stride walk ("each dimension must step past the previous one's
extent"), written as an assignment; every 1-D and 2-D layout (contiguous, strided, transposed,
expand) is still judged right, so the unit tests of the helper pass.
Promise broken: async_tensor_h2d docstring, ``out``: "Refused: layouts whose elements may share an
address (``expand``, overlapping ``as_strided``...)" and Raises: "ValueError: ... ``out`` ... with
overlapping memory".
Smallest input:
    base = torch.zeros(10); out = base.as_strided((2, 2, 2), (3, 2, 1))   # out[0,1,1] and out[1,0,0] share an address
    async_tensor_h2d(np.arange(8, dtype=np.float32).reshape(2, 2, 2), device="cpu", out=out)
Reference: ValueError "out has internally overlapping memory". Bug: no exception; ``out`` is written
and reads back [[[0,1],[2,4]],[[4,5],[6,7]]] (element 3 lost), not the data.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b01"


def _may_overlap(t):
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1):
        if stride <= reach:
            return True
        reach = stride * (size - 1)  # BUG: was reach += stride * (size - 1)
    return False


def _fork():
    return fork(TAG, h2d={"_may_overlap": _may_overlap})


def target() -> Target:
    return fork_target_full("b01_overlap_reach_reset", _fork())
