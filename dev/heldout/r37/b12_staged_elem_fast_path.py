"""StagedWriteTensor.stage_write_elem appends directly, as vLLM's does, skipping ``stage_write``'s checks.

What changed: ``stage_write_elem`` no longer calls ``self.stage_write(index, 0, [x])``; it
is vLLM 0.33.0's body: ``assert index >= 0`` and four appends.

Why an engineer would write it: ``stage_write_elem`` runs once per request per step (the
block tables' ``num_blocks``), and building a one-element list to go through the generic
path costs a list, a ``list(x)`` and a type scan; vLLM itself writes the fast path.

Promise broken (contract staged-write; StagedWriteTensor's docstring): a row past the
tensor is refused at staging time with IndexError naming ``index``, nothing staged; a
negative index is an IndexError, never an ``assert``; ``x`` must be a number (TypeError).
With the bug ``stage_write_elem(rows, v)`` is staged and fails only at ``apply_write``,
``stage_write_elem(-1, v)`` is an AssertionError, ``stage_write_elem(0, "7")`` is staged.

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(1, 7)``:
reference IndexError, nothing staged; bug: no error, ``t.staged_positions()[0] == [1]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _stage_write_elem(self, index, x):  # type: ignore[no-untyped-def]
    # BUG: vLLM's fast path: no bounds, type or row checks (only this assert)
    assert index >= 0
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(0)
    self._staged_write_contents.append(x)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, 1)


class StagedWriteTensor(REF.StagedWriteTensor):
    stage_write_elem = rebind(_stage_write_elem)


def target() -> Target:
    return make_target("staged_elem_fast_path", StagedWriteTensor=StagedWriteTensor)
