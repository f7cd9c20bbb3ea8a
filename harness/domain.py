"""A target's input domain: which kind of ``data`` a call has, and calls outside the domain counted as not applicable.

A target declares the kinds of ``data`` its function accepts (:attr:`Target.inputs`,
one of :data:`~contracts.targets.INPUT_KINDS` each: SGLang's ``async_h2d`` takes lists
only). Properties draw inside the domain; deterministic tables skip rows outside it and
count them here, so the report says how many calls were not applicable and no such call
counts as a pass or a fault.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

__all__ = ["data_kind", "in_domain", "out_of_domain", "reset", "skipped"]

_skipped = [0]


def data_kind(data: Any) -> str:
    """The input kind of ``data``: ``list``, ``tuple`` (a tuple anywhere in it), ``list-of-arrays``, ``ndarray`` (any
    dimensions, 0-d included), ``tensor`` (the same), ``scalar`` (a bare Python or numpy scalar), or ``other`` (None, a
    string, a dict...: never a valid input of any kind, so a refusal of it is judged for every target)."""
    if isinstance(data, (list, tuple)):
        # One C-level pass per container (the set of its elements' types), recursing only into
        # containers: a million-element list costs milliseconds, not a Python loop per element.
        stack: list[Any] = [data]
        tuples = False
        while stack:
            item = stack.pop()
            if isinstance(item, tuple):
                tuples = True
            types = set(map(type, item))
            if any(issubclass(t, (np.ndarray, torch.Tensor)) for t in types):
                return "list-of-arrays"
            if any(issubclass(t, (list, tuple)) for t in types):
                stack.extend(x for x in item if isinstance(x, (list, tuple)))
        return "tuple" if tuples else "list"
    if isinstance(data, np.ndarray):
        return "ndarray"
    if isinstance(data, torch.Tensor):
        return "tensor"
    if isinstance(data, (bool, int, float, complex, np.generic)):
        return "scalar"
    return "other"


def in_domain(target: Any, data: Any, kwargs: dict[str, Any] | None = None) -> bool:
    """Whether a call with ``data`` (and ``kwargs``, when given) lies inside ``target``'s declared domain.

    ``data`` of kind ``other`` always does; ``kwargs`` must hold every argument the target
    requires (:attr:`~contracts.targets.Target.requires`).
    """
    kind = data_kind(data)
    if kwargs is not None and not all(kwargs.get(k) is not None for k in getattr(target, "requires", ())):
        return False
    return kind == "other" or kind in getattr(target, "inputs", ())


def out_of_domain() -> None:
    """One call a table skipped because its data lies outside the target's declared inputs."""
    _skipped[0] += 1


def reset() -> None:
    """A new test starts (the plugin resets the count)."""
    _skipped[0] = 0


def skipped() -> int:
    """Calls skipped as outside the domain since the last :func:`reset`."""
    return _skipped[0]
