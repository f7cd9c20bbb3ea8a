"""UvaBackedTensor.copy_to_uva returns the pool's new view but leaves ``.gpu`` on the old one.

What changed: ``self.gpu = self.pool.copy_to_uva(rows); return self.gpu`` became
``return self.pool.copy_to_uva(rows)``.

Why an engineer would write it: a "simplification" of a method whose callers (in a
refactored runner) all use the return value; the attribute assignment looks like a
leftover.

Promise broken (UvaBackedTensor's docstring): ``.gpu`` is the view of the slot written
by the latest ``copy_to_uva``; ``copy_to_uva(n)`` makes ``.gpu`` the view of those rows.
Engine code that reads ``.gpu`` after a refresh (as vLLM's model runner does) reads the
zeros of the constructor's first upload.

Smallest input: ``t = UvaBackedTensor(1, torch.int32); t.np[0] = 5; t.copy_to_uva();
t.gpu``: reference ``[5]``, bug ``[0]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _copy_to_uva(self, n=None):  # type: ignore[no-untyped-def]
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]  # noqa: F821
    return self.pool.copy_to_uva(rows)  # BUG: .gpu is no longer updated


class UvaBackedTensor(REF.UvaBackedTensor):
    copy_to_uva = rebind(_copy_to_uva)


def target() -> Target:
    return make_target("backed_gpu_attribute_stale", UvaBackedTensor=UvaBackedTensor)
