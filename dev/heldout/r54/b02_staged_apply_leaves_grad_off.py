"""b02 (CPU): ``apply_write`` switches autograd off for the calling thread, and leaves it off.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.apply_write``.

Change: a guard against autograd ("an in-place ``index_copy_`` into a ``.gpu`` that requires grad
raises 'a leaf Variable that requires grad is being used in an in-place operation'; the writes
are data, never part of a graph"), written as a statement where a ``with`` block was meant::

    _write(self.gpu, *_converted(self))                                          # reference

    torch.set_grad_enabled(False)                                                # bug
    _write(self.gpu, *_converted(self))

``torch.set_grad_enabled(False)`` called as a function sets the thread's grad mode at once (it is
a context manager only under ``with``). Every write is the reference's; an apply with nothing
staged returns first and changes nothing. After the first apply that writes, the calling thread
(the engine's) runs without autograd: tensors made afterwards by the caller's own code do not
require grad, and no graph is recorded, silently.

Promise broken: README.md, contract ``side-effects``: "every call, valid or failing, leaves the
process as it found it: ... grad mode"; docs/reference.md, Calling contexts: "no default dtype,
grad mode, thread count or random state is touched".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write(); torch.is_grad_enabled()``.
Reference: ``t.gpu == [5, 0]``; ``True``. Bug: ``t.gpu == [5, 0]``; ``False``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _converted, _write)


def apply_write(self: Any) -> None:
    if not self._staged_write_indices:
        return
    torch.set_grad_enabled(False)  # BUG (r54 b02): a statement, not a `with` block: grad mode stays off
    _write(self.gpu, *_converted(self))
    self.clear_staged_writes()


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_staged_apply_leaves_grad_off",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"StagedWriteTensor": {"apply_write": apply_write}}),
    )
