"""NonUvaBuffer.uva(None) returns the device twin without refreshing it.

What changed: ``NonUvaBuffer.uva`` was aligned with ``UvaBuffer.uva``: for ``n is None``
it returns ``self._uva`` as it is, without ``copy_(self.cpu)``.

Why an engineer would write it: ``UvaBuffer.uva()`` is literally ``return self._uva`` (a
view: nothing to copy), and vLLM writes both methods the same way for ``n`` given; making
the ``None`` branch "the whole buffer, as UvaBuffer does" looks like a harmless
unification, and the pool never calls ``uva()`` without ``n``.

Promise broken (contract uva; NonUvaBuffer's docstring): ``uva(n)`` is the first ``n``
rows of ``.cpu``, all rows for ``None``; the twin is refreshed by ``uva`` and holds the
host's values at the call.

Smallest input: ``b = NonUvaBuffer(1, torch.int32); b.np[0] = 5; b.uva()``:
reference ``[5]``, bug ``[0]`` (the twin's initial zeros).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _uva(self, n=None):  # type: ignore[no-untyped-def]
    if n is None:
        return self._uva  # BUG: the whole twin, as UvaBuffer.uva() returns it: never refreshed from .cpu
    n = row_count(n, self.cpu.shape[0])  # noqa: F821 (resolved in buffer_utils by rebind)
    return self._uva[:n].copy_(self.cpu[:n], non_blocking=True)


class NonUvaBuffer(REF.NonUvaBuffer):
    uva = rebind(_uva)


def target() -> Target:
    return make_target("nonuva_full_view_not_refreshed", NonUvaBuffer=NonUvaBuffer)

