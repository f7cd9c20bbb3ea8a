"""b05 (CPU): staged writes are stored with ``put_`` under deterministic algorithms switched off, and the caller's ``warn_only`` is not put back.

Where: ``h2d_impl/buffer_utils.py::_write`` (every ``StagedWriteTensor.apply_write`` and ``FusedStagedWriter.apply``).

Change: a flat store (``put_``) instead of ``index_copy_`` along the flattened view ("the positions are unique after the
dedupe, so ``put_``'s order cannot matter; torch flags ``put_`` as nondeterministic and raises in deterministic
mode, so switch the mode off around it and back on after")::

    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))  # reference

    deterministic = torch.are_deterministic_algorithms_enabled()                     # bug
    torch.use_deterministic_algorithms(False)
    try:
        gpu.put_(where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))
    finally:
        torch.use_deterministic_algorithms(deterministic)

The values are the reference's, and the one flag the engineer read is restored, on the error path too. But
deterministic mode is two settings: ``use_deterministic_algorithms(mode, *, warn_only=False)`` sets both, and
the restore passes only the first. An engine (or a test suite) that asked for
``use_deterministic_algorithms(True, warn_only=True)`` (warn about nondeterministic ops, do not fail) leaves its
first ``apply_write`` in strict mode: every later nondeterministic op of the process raises instead of warning.
(A process that never set ``warn_only`` sees nothing: the restore writes the default.)

Promise broken: docs/reference.md, Calling contexts: "``torch.use_deterministic_algorithms(True)``: the same results
..." and "Process-wide state: a call changes none (contract ``side-effects``) ... no default dtype, grad mode,
thread count or random state is touched"; docs/contracts.md, side-effects: "Every call ... leaves the
process-wide state as it found it ... torch: ... the deterministic-algorithms flags" (``prop_buffer_utils_side_effects``:
"staged writes applied").

Smallest input: ``torch.use_deterministic_algorithms(True, warn_only=True); t = StagedWriteTensor(2, torch.int32, 'cpu');
t.stage_write_elem(0, 7); t.apply_write(); t.gpu, torch.is_deterministic_algorithms_warn_only_enabled()``.
Reference: ``tensor([7, 0], dtype=torch.int32)``, ``True``. Bug: ``tensor([7, 0], dtype=torch.int32)``, ``False``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d)


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    picked = contents.index_select(0, async_tensor_h2d(keep, device=gpu.device))
    # put_: one flat store; the positions are unique after the dedupe, so its order cannot matter, but torch flags
    # it nondeterministic (it raises in deterministic mode): off around it, back after
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(False)
    try:
        gpu.put_(where, picked)
    finally:
        torch.use_deterministic_algorithms(deterministic)  # BUG (r57 b05): warn_only not put back (reset to False)


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_staged_put_restores_determinism_without_warn_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", names={"_write": _write}),
    )
