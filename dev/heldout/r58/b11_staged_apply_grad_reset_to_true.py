"""b11 (CPU): ``apply_write`` switches grad mode off for its write and afterwards switches it on, whatever it was.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.apply_write``.

Change: the write kept out of autograd without a context manager ("``torch.no_grad()`` is a Python object and two
calls per apply; the write is in place on a buffer autograd must never see")::

    _write(self.gpu, *_converted(self))                                              # reference

    torch.set_grad_enabled(False)                                                    # bug
    try:
        _write(self.gpu, *_converted(self))
    finally:
        torch.set_grad_enabled(True)

The ``finally`` restores grad mode to the value the engineer expected callers to have (on), not to the value they
had. A caller that applies its writes inside ``torch.no_grad()`` (a runner's ``execute_model`` under
``@torch.no_grad()``, an evaluation loop) has grad mode switched on again for the rest of its block: every op it
runs after the apply records a graph (memory held until the block ends, ``requires_grad`` results, in-place ops on
leaves refused). Grad mode is restored only where the caller had it on already.

Promise broken: docs/reference.md, Calling contexts: "Process-wide state: a call changes none (contract
``side-effects``): ... no default dtype, grad mode, thread count or random state is touched"; docs/contracts.md:
"Table ``prop_staged_in_contexts`` ... a staged tensor written and applied ... under ``torch.no_grad()``".

Smallest input: ``t = StagedWriteTensor(1, torch.int32, 'cpu'); with torch.no_grad(): t.stage_write_elem(0, 7);
t.apply_write(); torch.is_grad_enabled()``.
Reference: ``.gpu == [7]``, ``False``. Bug: ``.gpu == [7]``, ``True``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _converted, _write)


def apply_write(self: Any) -> None:
    """Write every staged write into ``.gpu`` (current stream, staging order) and clear them."""
    if not self._staged_write_indices:
        return
    torch.set_grad_enabled(False)  # an in-place write into a buffer: nothing for autograd to record
    try:
        _write(self.gpu, *_converted(self))
    finally:
        torch.set_grad_enabled(True)  # BUG (r58 b11): on, not the caller's mode (no_grad callers get grad back)
    self.clear_staged_writes()


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_staged_apply_grad_reset_to_true",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"StagedWriteTensor": {"apply_write": apply_write}}),
    )
