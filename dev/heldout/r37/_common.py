"""Shared plumbing for the r37 bug modules (not a bug itself).

Every bug is the reference's Model Runner V2 utilities (``h2d_contracts.h2d_impl.buffer_utils``)
with one small change. The reference module is never patched: a bug in a method subclasses
the reference class and overrides that method (:func:`rebind` gives code written here the
reference module's globals); a bug in a module-level helper is bound into the classes that
use it by subclassing them too. :func:`make_target` returns the round's Target, whose
``buffer_utils`` is the reference's classes with the bug's replacements.
"""

from __future__ import annotations

import types
from typing import Any

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as REF

__all__ = ["REF", "make_target", "rebind"]

_CLASSES = ("UvaBuffer", "NonUvaBuffer", "UvaBufferPool", "UvaBackedTensor", "StagedWriteTensor", "FusedStagedWriter")


def rebind(fn: Any, **extra: Any) -> types.FunctionType:
    """A copy of ``fn`` (code written in a bug module) resolving its globals in buffer_utils (plus ``extra``)."""
    g = dict(REF.__dict__)
    g.update(extra)
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new.__qualname__ = fn.__qualname__
    return new


def make_target(short: str, **classes: Any) -> Target:
    """The reference target whose ``buffer_utils`` has ``classes`` (e.g. ``UvaBufferPool=BuggyPool``) in place of the reference's."""
    unknown = set(classes) - set(_CLASSES)
    if unknown:
        raise ValueError(f"not a buffer_utils class: {sorted(unknown)}")
    utils = types.SimpleNamespace(**{name: classes.get(name, getattr(REF, name)) for name in _CLASSES})
    return Target(
        name=f"r37-{short}",
        async_tensor_h2d=h2d_impl.async_tensor_h2d,
        buffer_cls=h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda", "buffer-utils"}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__ + "+r37",
        empty_cache=h2d_impl.empty_staging_cache,
        buffer_utils=utils,
    )
