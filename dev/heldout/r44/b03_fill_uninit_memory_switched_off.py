"""b03 (CPU): every host call switches off torch's process-wide ``fill_uninitialized_memory``.

Where: ``h2d._stage`` (the fresh host result of every call aimed at ``"cpu"`` without
``out``, in the main function and the CPU-platform variant).

The change: one line added before the allocation::

    torch.utils.deterministic.fill_uninitialized_memory = False
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)

Why an engineer writes it: engines run with ``torch.use_deterministic_algorithms(True)``
for reproducible runs, and then torch fills every ``torch.empty`` with NaN (or the
dtype's largest integer), a full pass over a staging tensor that the very next line
overwrites whole. Switching the fill off "for our own allocation" looks like a local
performance fix; the flag is process-wide and is never restored, so the caller's own
``torch.empty`` allocations are no longer filled afterwards (the guarantee deterministic
mode gives them: uninitialised reads are reproducible, never stale memory).

Promise broken: docs/reference.md "Calling contexts": "Process-wide state: a call
changes none (contract ``side-effects``) ... no default dtype, grad mode, thread count
or random state is touched"; docs/contracts.md ``side-effects``: every call "leaves the
process-wide state as it found it", read before and after, the deterministic-algorithms
flags among them.

Smallest input: ``async_tensor_h2d([1], device="cpu")``, then read
``torch.utils.deterministic.fill_uninitialized_memory``.
Reference: ``True`` (as found). Bug: ``False`` (the result itself, ``tensor([1])``, is right).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``)."""
    # BUG: deterministic mode fills torch.empty with NaN, a wasted pass over staging the copy overwrites whole;
    # the flag is process-wide and is left switched off
    torch.utils.deterministic.fill_uninitialized_memory = False
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)  # noqa: F821 (bound in the fork)


def _fork() -> Fork:
    return fork("b03", h2d={"_stage": _stage})


def target() -> Target:
    f = _fork()
    return make_target(
        "b03_fill_uninit_memory_switched_off",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
