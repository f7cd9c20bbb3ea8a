"""``StagedWriteTensor.apply_write`` clears the staged writes even when it raises.

What changed: ``apply_write`` converted (validated) the staged values, wrote them, then
cleared the staged writes; a value the dtype cannot hold raised before anything was
written and the writes stayed staged. The change wraps the write in ``try/finally`` and
clears in the ``finally``: "one bad request must not poison every later step with the same
error; drop the batch and go on".

Why an engineer writes it: it is a resilience fix that looks like good hygiene (always
leave the object clean), and the exception still reaches the caller.

Promise broken: ``apply_write``'s docstring ("Raises: ValueError, TypeError: a staged value
the dtype cannot hold; nothing is written and the writes stay staged") and docs/reference.md
("a value out of the dtype's range raises at ``apply_write``, nothing written"; "A failed
call writes nothing"): the good writes staged with the bad one are silently lost, and the
caller that catches the error, fixes the bad write and applies again loses them for good.

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(0, 0, [5]);
t.stage_write(1, 0, [2**40]); t.apply_write()`` (ValueError in both), then
``t.staged_positions()``: reference still holds both writes (positions ``[0, 1]``); bug holds
none.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor, _converted, _write

from ._common import buffer_utils_ns, make_target


class ClearingStagedWriteTensor(StagedWriteTensor):
    def apply_write(self) -> None:
        if not self._staged_write_indices:
            return
        try:
            _write(self.gpu, *_converted(self))
        finally:
            self.clear_staged_writes()  # BUG: cleared on failure too (was: only after a successful write)


def target() -> Target:
    return make_target(
        "b18_apply_write_clears_on_error",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=ClearingStagedWriteTensor),
    )
