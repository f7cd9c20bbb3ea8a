"""b18 (CPU): the default round-robin depth of the pools is 1, not vLLM's 2.

Where: buffer_utils.py, ``DEFAULT_MAX_CONCURRENCY`` (read by ``UvaBufferPool.__init__``, hence
``UvaBackedTensor`` and ``StagedWriteTensor.max_concurrency``).
Change: ``DEFAULT_MAX_CONCURRENCY = 2`` -> ``1``.
Why plausible: "one slot per pool halves the pinned memory of the runner's many pools; the engine
synchronises every step anyway" (true for a synchronous scheduler, not with async scheduling's two steps
in flight).
Promise broken: docs/reference.md: "What the reference keeps of vLLM's design: round-robin slots
(max_concurrency, default 2) ... readers valid until max_concurrency later steps reuse their slot";
UvaBufferPool docstring: "max_concurrency: the number of slots (default DEFAULT_MAX_CONCURRENCY)" with
"A reader of that view sees its data until max_concurrency more calls have come".
Smallest input:
    pool = UvaBufferPool(3, torch.int32)              # default depth
    v1 = pool.copy_to_uva([1, 1, 1]); v2 = pool.copy_to_uva([2, 2, 2])
    v1.tolist()
Reference: [1, 1, 1] (step 1's reader still valid one step later). Bug: [2, 2, 2] (step 2 reused its slot).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b18"


def classes():
    return bu_fork(TAG, names={"DEFAULT_MAX_CONCURRENCY": 1})  # BUG: was 2


def target() -> Target:
    return bu_target(TAG, "b18_default_depth_one", classes())
