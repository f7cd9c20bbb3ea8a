"""NonUvaBuffer.uva(0) copies and returns every row (``if not n`` for ``if n is None``).

What changed: the ``None`` test of ``NonUvaBuffer.uva`` was written ``if not n:``.

Why an engineer would write it: "no n given" reads naturally as ``if not n``, and the
engine's callers always pass a positive row count, so the falsy ``0`` never shows up in a
smoke test.

Promise broken (contract uva): ``uva(n)`` returns the first ``n`` rows of ``.cpu`` for
every ``n`` in ``[0, rows]``: ``uva(0)`` is an empty slice.

Smallest input: ``NonUvaBuffer(1, torch.int32).uva(0)``: reference shape ``(0,)``,
bug shape ``(1,)`` (every row).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _uva(self, n=None):  # type: ignore[no-untyped-def]
    if not n:  # BUG: `not n` is also true for n == 0
        return self._uva.copy_(self.cpu, non_blocking=True)
    n = row_count(n, self.cpu.shape[0])  # noqa: F821
    return self._uva[:n].copy_(self.cpu[:n], non_blocking=True)


class NonUvaBuffer(REF.NonUvaBuffer):
    uva = rebind(_uva)


def target() -> Target:
    return make_target("nonuva_zero_rows_means_all", NonUvaBuffer=NonUvaBuffer)
