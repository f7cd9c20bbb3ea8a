"""GPU only. UvaBuffer.uva(0) returns the whole view (``if not n`` for ``n is None``).

What changed: ``UvaBuffer.uva`` was written in vLLM's one-line style with a truthiness
test: ``return self._uva[: row_count(n, rows)] if n else self._uva``.

Why an engineer would write it: "no n" reads as ``not n``; the runner's callers always
pass a positive ``num_reqs``, so an empty step (``n == 0``) is never in a smoke test.

Promise broken (contract uva): ``uva(n)`` is the first ``n`` rows of ``.cpu`` for every
``n`` in ``[0, rows]``; ``uva(0)`` is empty. A kernel launched over ``uva(0)`` of an idle
step reads every row.

Needs a CUDA device with pinned memory: ``UvaBuffer`` raises RuntimeError without UVA, so
nothing of this shows on a CPU-only machine (pools use NonUvaBuffer there).

Smallest input: ``UvaBuffer(1, torch.int32).uva(0)``: reference shape ``(0,)``, bug
shape ``(1,)``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _uva(self, n=None):  # type: ignore[no-untyped-def]
    return self._uva[: row_count(n, self.cpu.shape[0])] if n else self._uva  # BUG: n == 0 takes the "all rows" branch  # noqa: F821


class UvaBuffer(REF.UvaBuffer):
    uva = rebind(_uva)


def target() -> Target:
    return make_target("uva_buffer_zero_rows_means_all", UvaBuffer=UvaBuffer)
