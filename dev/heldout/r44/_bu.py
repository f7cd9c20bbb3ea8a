"""Plumbing for the buffer_utils bugs of round r44 (not a bug itself).

``bu_fork(tag, names=..., methods=...)`` builds subclasses of the reference's six Model
Runner V2 classes whose methods are the reference's own code (``_common.rebind``) with
their globals re-pointed: each class name resolves to its subclass (so a pool makes the
buggy buffers, a backed tensor the buggy pool), and ``names`` (module-level functions
such as ``_write`` or ``uva_view``) resolve to the bug's copy. ``methods`` replaces single
methods (``{"StagedWriteTensor": {"stage_write": fn}}``), rebound the same way. Nothing
of ``h2d_impl.buffer_utils`` is patched; without overrides the classes behave exactly as
the reference's.
"""

from __future__ import annotations

import types
from typing import Any

from h2d_contracts.h2d_impl import buffer_utils as bu

from ._common import BUFFER_UTILS_CLASSES, rebind

__all__ = ["bu_fork"]


def bu_fork(tag: str, *, names: dict[str, Any] | None = None, methods: dict[str, dict[str, Any]] | None = None) -> types.SimpleNamespace:
    names = dict(names or {})
    methods = dict(methods or {})
    unknown = set(methods) - set(BUFFER_UTILS_CLASSES)
    if unknown:
        raise TypeError(f"not a buffer_utils class: {sorted(unknown)}")
    new = {
        c: type(c, (getattr(bu, c),), {"__module__": f"r44.{tag}", "__doc__": getattr(bu, c).__doc__})
        for c in BUFFER_UTILS_CLASSES
    }
    extra: dict[str, Any] = dict(new)
    funcs = {k: (rebind(v, bu) if isinstance(v, types.FunctionType) else v) for k, v in names.items()}
    extra.update(funcs)
    # module-level overrides see the subclasses and each other too
    for k, v in list(funcs.items()):
        if isinstance(v, types.FunctionType):
            extra[k] = rebind(v, bu, **{n: o for n, o in extra.items() if n != k})
    for c in BUFFER_UTILS_CLASSES:
        for attr, fn in vars(getattr(bu, c)).items():
            if isinstance(fn, types.FunctionType):
                setattr(new[c], attr, rebind(fn, bu, **extra))
        for attr, fn in methods.get(c, {}).items():
            setattr(new[c], attr, rebind(fn, bu, **extra))
    return types.SimpleNamespace(**new)


def bu_target(tag: str, short: str, classes: types.SimpleNamespace):
    """The round's Target for a buffer_utils bug: the reference's host parts (a private fork) and ``classes``."""
    from ._common import fork, make_target

    f = fork(tag)
    return make_target(
        short,
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes,
    )
