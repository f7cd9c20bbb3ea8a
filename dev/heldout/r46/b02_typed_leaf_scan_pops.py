"""b02 (CPU): the typed-leaf scan consumes the caller's lists.

Where: ``_host._has_typed_leaf`` (asked by ``_list_own_dtype`` for every nested or mixed
list whose dtype is inferred). The reference walks each level with ``for item in level``.
The bug walks it as a work-list, ``while level: item = level.pop()`` ("no iterator object
per level"), and ``level`` is the caller's own list (the top level, and every nested list
whose types are not all plain numbers).

Why realistic: a micro-optimisation of a hot scan written as if the levels were private
copies; the values of the call are still right (the array was built before the scan), so
only the caller sees the damage, later.

Smallest input: ``d = [[1, 2], [3, 4]]; async_tensor_h2d(d, device="cpu"); d``.
Reference: the result ``[[1, 2], [3, 4]]`` and ``d`` unchanged. Bug: the same result, and
``d == []`` afterwards (the input is lost). With a typed leaf the damage reaches the
result too: ``d = [1, np.float16(2)]`` gives the reference ``tensor([1., 2.],
dtype=torch.float16)``; the bug pops the float16 while scanning, ``torch.tensor`` then
infers the dtype of what is left, ``[1]``, and the result is ``tensor([1, 2])`` (int64),
with ``d == [1]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _has_typed_leaf(data):
    """Whether a nested list/tuple holds a numpy scalar, an ndarray or a tensor anywhere among its elements."""
    stack = [data] if isinstance(data, (list, tuple)) else []
    while stack:
        level = stack.pop()
        if set(map(type, level)) <= _PLAIN_LEAVES:
            continue
        while level:  # BUG: was `for item in level:` (the level is the caller's list)
            item = level.pop()
            if type(item) in _PLAIN_LEAVES:
                continue
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):
                return True
    return False


def target() -> Target:
    f = fork("b02", _host={"_has_typed_leaf": _has_typed_leaf})
    return make_target(
        "b02_typed_leaf_scan_pops",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
