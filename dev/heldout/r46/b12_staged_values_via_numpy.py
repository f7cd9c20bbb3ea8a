"""b12 (CPU): ``StagedWriteTensor.stage_write`` normalises ``x`` through ``np.asarray``.

Where: ``buffer_utils.StagedWriteTensor.stage_write``. The reference materialises the
values with ``list(x)`` (any iterable: list, tuple, generator, as vLLM's ``stage_write``
takes) and refuses bools and non-numbers. The bug writes
``values = np.asarray(x).ravel().tolist()`` ("one conversion for lists, tuples, arrays
and tensors").

Why realistic: a tidy-up that also lets tensors and 2-D arrays in; but numpy wraps a
generator in a 0-d object array (its one element is the generator: refused as a
non-number), and it coerces mixed lists (``[True, 2]`` becomes ``[1, 2]``: bools are no
longer refused).

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(0, 0,
(v for v in [7])); t.apply_write(); t.gpu``. Reference: ``tensor([7, 0], dtype=torch.int32)``.
Bug: ``TypeError: x must hold numbers (int or float)`` at ``stage_write``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def stage_write(self, index, start, x):
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
    try:
        values = np.asarray(x).ravel().tolist()  # BUG: was `values = list(x)`
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_staged_values_via_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
