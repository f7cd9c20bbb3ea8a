"""Shared plumbing for held-out rounds from r45 on (not a bug itself).

Rounds r1-r44 each carry their own copy of this plumbing (``rNN/_common.py``, ``_bu.py``)
as their authors wrote it; from r45 a round imports this module instead of copying it.
``dev/heldout.py`` puts ``dev/heldout`` on ``sys.path``, so a bug module writes::

    import plumbing
    plumbing.ROUND = "r45"          # once, in the round's __init__.py

Every bug is the reference (``h2d_contracts.h2d_impl``) with one function (or one
constant) changed. The reference modules are never patched. Instead :func:`fork` builds
private copies of the reference's four modules (``_host``, ``_staging``, ``buffer``,
``h2d``) as fresh module objects: every module-level function is copied
(``types.FunctionType(code, new_globals)``) so that it resolves its globals in the
copy, names imported from a sibling module are re-pointed to the sibling's copy, the
mutable module state (the staging pools, the resolved-device cache) is fresh, and the
overrides (the one buggy function or constant) are bound into the copy. A bug therefore
cannot leak into another target of the same process, and each target's staging pools
and caches are its own (its ``empty_cache`` is its own ``empty_staging_cache``).

Classes (``CpuGpuBuffer``, ``StagingPool``) are not copied: a bug in one of their methods
subclasses the reference class and overrides that method, the method's code rebound to
the reference module's globals with :func:`rebind`. Model Runner V2's six classes
(``h2d_impl.buffer_utils``) are forked by :func:`bu_fork`: subclasses whose methods are
the reference's own code with globals re-pointed, so each class name resolves to its
subclass and module-level overrides (``_write``, ``uva_view``) to the bug's copy.

Why not ``unittest.mock.patch``: a patch changes the reference for every target of the
process (the kit's own reference target included) and for the whole test session; a
fork keeps the bug private to its target.
"""

from __future__ import annotations

import threading
import types
from typing import Any

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host, _staging, buffer, h2d
from h2d_contracts.h2d_impl import buffer_utils as bu

__all__ = [
    "ROUND",
    "fork",
    "fork_target",
    "fork_target_full",
    "rebind",
    "make_target",
    "buffer_utils_ns",
    "bu_fork",
    "bu_target",
    "Raw",
    "ALL_CAPS",
    "REFERENCE",
    "BUFFER_UTILS_CLASSES",
]

#: The round's name (``"r45"``): set once by the round's ``__init__.py``; it prefixes target names.
ROUND = "rNN"


def _round(tag: str) -> str:
    return f"{ROUND}:{tag}"


_ORIG: dict[str, types.ModuleType] = {"_host": _host, "_staging": _staging, "buffer": buffer, "h2d": h2d}

ALL_CAPS = frozenset({"out", "buffer", "cpu-variant", "cuda"})


def _fresh_state(key: str) -> dict[str, Any]:
    if key == "_staging":
        return {"_POOLS": {}, "_POOLS_LOCK": threading.Lock()}
    if key == "h2d":
        return {"_RESOLVED": {}}
    return {}


def _copy_fn(fn: types.FunctionType, g: dict[str, Any]) -> types.FunctionType:
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new.__dict__.update(fn.__dict__)
    new.__doc__ = fn.__doc__
    new.__qualname__ = fn.__qualname__
    new.__annotations__ = dict(getattr(fn, "__annotations__", {}) or {})
    return new


def rebind(fn: Any, module: types.ModuleType, **extra: Any) -> types.FunctionType:
    """A copy of ``fn`` (code written in a bug module) whose globals are a copy of ``module``'s, plus ``extra``."""
    g = dict(module.__dict__)
    g.update(extra)
    return _copy_fn(fn, g)


class Raw:
    """An override bound into a forked module as it is (a function kept with its own globals)."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj


class Fork(types.SimpleNamespace):
    """The four forked modules: ``.host``, ``.staging``, ``.buffer``, ``.h2d``."""


def fork(tag: str, **overrides: dict[str, Any]) -> Fork:
    """Private copies of the reference modules with ``overrides`` (``h2d={"_dense": fn}``) bound in.

    A function given as an override is copied with the forked module's globals, so code
    written in a bug module resolves every name as the reference function does; ``Raw(obj)``
    is bound as it is. Overriding a function *defined* in that module also re-points the
    sibling modules that imported it; overriding an imported name changes that module only.
    """
    mods: dict[str, types.ModuleType] = {}
    for key, orig in _ORIG.items():
        m = types.ModuleType(f"{orig.__name__}[{_round(tag)}]")
        m.__dict__.update({k: v for k, v in orig.__dict__.items() if k not in ("__name__", "__spec__", "__loader__")})
        m.__dict__.update(_fresh_state(key))
        mods[key] = m
    mapping: dict[int, Any] = {id(o): mods[k] for k, o in _ORIG.items()}
    keep: list[Any] = []  # the originals the mapping's ids refer to stay alive (they do anyway: module globals)
    for key, m in mods.items():
        orig = _ORIG[key]
        for name, v in list(m.__dict__.items()):
            if isinstance(v, types.FunctionType) and v.__module__ == orig.__name__:
                new = _copy_fn(v, m.__dict__)
                m.__dict__[name] = new
                mapping[id(v)] = new
                keep.append(v)
    for key, table in overrides.items():
        m = mods[key]
        for name, obj in table.items():
            old = getattr(_ORIG[key], name, None)
            if isinstance(obj, Raw):
                new = obj.obj
            elif isinstance(obj, types.FunctionType):
                new = _copy_fn(obj, m.__dict__)
            else:
                new = obj
            m.__dict__[name] = new
            if old is not None and getattr(old, "__module__", None) == _ORIG[key].__name__:
                mapping[id(old)] = new
                keep.append(old)
    # names a module imported from a sibling (h2d's as_source_tensor, _staging, ...) -> the sibling's copy
    for m in mods.values():
        for name, v in list(m.__dict__.items()):
            if name.startswith("__"):
                continue
            hit = mapping.get(id(v))
            if hit is not None and hit is not v:
                m.__dict__[name] = hit
    return Fork(host=mods["_host"], staging=mods["_staging"], buffer=mods["buffer"], h2d=mods["h2d"], _keep=keep)


#: The six classes of Model Runner V2's transfer utilities (``Target.buffer_utils``).
BUFFER_UTILS_CLASSES = (
    "UvaBuffer",
    "NonUvaBuffer",
    "UvaBufferPool",
    "UvaBackedTensor",
    "StagedWriteTensor",
    "FusedStagedWriter",
)


def buffer_utils_ns(**replace: Any) -> types.SimpleNamespace:
    """The reference's six buffer_utils classes as a namespace, ``replace`` (``StagedWriteTensor=Buggy``) swapped in."""
    unknown = set(replace) - set(BUFFER_UTILS_CLASSES)
    if unknown:
        raise TypeError(f"not a buffer_utils class: {sorted(unknown)}")
    return types.SimpleNamespace(
        **{name: replace.get(name, getattr(h2d_impl.buffer_utils, name)) for name in BUFFER_UTILS_CLASSES}
    )


def make_target(
    short: str,
    *,
    fn: Any = None,
    buffer_cls: Any = None,
    cpu_variant: Any = None,
    empty_cache: Any = None,
    buffer_utils: Any = None,
    capabilities: frozenset[str] | None = None,
) -> Target:
    """The round's Target: the reference's parts wherever a bug does not replace them.

    ``buffer_utils``: a namespace of the six Model Runner V2 classes (:func:`buffer_utils_ns`);
    given, the target declares capability ``"buffer-utils"`` too (unless ``capabilities`` says otherwise).
    """
    if capabilities is None:
        capabilities = ALL_CAPS | {"buffer-utils"} if buffer_utils is not None else ALL_CAPS
    return Target(
        name=f"{ROUND}-{short}",
        async_tensor_h2d=fn if fn is not None else h2d_impl.async_tensor_h2d,
        buffer_cls=buffer_cls if buffer_cls is not None else h2d_impl.CpuGpuBuffer,
        cpu_variant=cpu_variant if cpu_variant is not None else h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset(capabilities),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__ + f"+{ROUND}",
        empty_cache=empty_cache if empty_cache is not None else h2d_impl.empty_staging_cache,
        buffer_utils=buffer_utils,
    )


def fork_target(short: str, f: Fork, *, main: bool = True, variant: bool = True, buffer_cls: Any = None) -> Target:
    """A Target whose main function and/or CPU variant come from fork ``f`` (its own pools: its own empty_cache)."""
    return make_target(
        short,
        fn=f.h2d.async_tensor_h2d if main else None,
        cpu_variant=f.h2d.async_tensor_h2d_cpu if variant else None,
        buffer_cls=buffer_cls,
        empty_cache=f.staging.empty_staging_cache if main else None,
    )


REFERENCE = h2d_impl


def fork_target_full(short: str, f: Fork, *, buffer_cls: Any = None) -> Target:
    """The usual target of a round's bug in ``_host``/``h2d``/``_staging``: main function and CPU variant
    from fork ``f`` (its own pools and caches), the reference ``CpuGpuBuffer`` unless given, and the
    reference Model Runner V2 classes (so every contract the control meets is applicable)."""
    return make_target(
        short,
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=buffer_cls,
        buffer_utils=buffer_utils_ns(),
    )


def bu_fork(
    tag: str, *, names: dict[str, Any] | None = None, methods: dict[str, dict[str, Any]] | None = None
) -> types.SimpleNamespace:
    """Subclasses of the six Model Runner V2 classes with ``names`` (module-level functions) and ``methods``
    (``{"StagedWriteTensor": {"stage_write": fn}}``) replaced, rebound to the reference module's globals."""
    names = dict(names or {})
    methods = dict(methods or {})
    unknown = set(methods) - set(BUFFER_UTILS_CLASSES)
    if unknown:
        raise TypeError(f"not a buffer_utils class: {sorted(unknown)}")
    new = {
        c: type(c, (getattr(bu, c),), {"__module__": f"{ROUND}.{tag}", "__doc__": getattr(bu, c).__doc__})
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


def bu_target(tag: str, short: str, classes: types.SimpleNamespace) -> Target:
    """The round's Target for a buffer_utils bug: the reference's host parts (a private fork) and ``classes``."""
    f = fork(tag)
    return make_target(
        short,
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes,
    )
