"""StagedWriteTensor.apply_write clears the staged writes in a ``finally``: a failed apply loses them.

What changed: ``_write(...); self.clear_staged_writes()`` became
``try: _write(...) finally: self.clear_staged_writes()``.

Why an engineer would write it: "a bad value must not poison every later step: whatever
happens, start the next step with an empty staging list" - a defensive cleanup pattern.

Promise broken (StagedWriteTensor.apply_write's docstring): a staged value the dtype
cannot hold raises ValueError/TypeError, "nothing is written and the writes stay staged"
(so the caller can inspect or clear them, and a failing call changes no state).

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(0,
2**31); t.apply_write()`` raises ValueError in both; afterwards ``t.staged_positions()``:
reference ``([0], [2147483648])``, bug ``([], [])``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _apply_write(self):  # type: ignore[no-untyped-def]
    if not self._staged_write_indices:
        return
    try:
        _write(self.gpu, *_converted(self))  # noqa: F821
    finally:
        self.clear_staged_writes()  # BUG: also runs when the conversion raised


class StagedWriteTensor(REF.StagedWriteTensor):
    apply_write = rebind(_apply_write)


def target() -> Target:
    return make_target("staged_cleared_on_failed_apply", StagedWriteTensor=StagedWriteTensor)
