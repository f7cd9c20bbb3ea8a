"""StagedWriteTensor.stage_write returns early on an empty ``x`` before checking ``index`` and ``start``.

What changed: the ``if not values: return`` fast path moved above the type and bounds
checks of ``index``/``start``.

Why an engineer would write it: "an empty write stages nothing, so there is nothing to
validate": a micro-optimisation for the common empty-diff case of the block tables.

Promise broken (contract staged-write; reference.md): a write past the tensor's rows or
with a negative index or start raises IndexError naming ``index``/``start`` ("a row past
the tensor ... is refused at staging time"), whatever ``x`` holds; a non-int
``index``/``start`` raises TypeError.

Smallest input: ``StagedWriteTensor(1, torch.int32, "cpu").stage_write(1, 0, [])``:
reference IndexError ("index=1 is outside the tensor's rows [0, 1)"); bug: returns None.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _stage_write(self, index, start, x):  # type: ignore[no-untyped-def]
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if not values:  # BUG: fast path taken before index/start are checked
        return
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):  # noqa: F821
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


class StagedWriteTensor(REF.StagedWriteTensor):
    stage_write = rebind(_stage_write)


def target() -> Target:
    return make_target("staged_empty_write_unchecked", StagedWriteTensor=StagedWriteTensor)
