"""Shared helper of the r30 bugs: the reference's own functions with one global name rebound.

``rebind(fn, name=value)`` is a function with ``fn``'s code, defaults and docstring that
reads ``value`` wherever ``fn`` reads the module global ``name``. Each bug swaps its one
changed piece into the reference's call chain this way, without touching the reference
modules: the control and other targets in the same process keep the real functions.
"""

from __future__ import annotations

import types

from h2d_contracts.h2d_impl import h2d


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def rebind(fn, **names):
    """``fn`` with the module globals ``names`` replaced (each must be a name ``fn`` reads)."""
    unknown = sorted(set(names) - _global_names(fn.__code__))
    if unknown:
        raise NameError(f"{fn.__qualname__} reads no global named {unknown}")
    glb = dict(fn.__globals__)
    glb.update(names)
    new = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new.__doc__ = fn.__doc__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__annotations__ = dict(fn.__annotations__)
    return new


def entry_points(*, prepare=None, stage=None, to_device=None, async_h2d=None):
    """``(async_tensor_h2d, async_tensor_h2d_cpu)`` of the reference rebuilt over the swapped pieces.

    ``prepare`` replaces ``_prepare`` (both entry points), ``stage`` ``_stage`` (both),
    ``to_device`` ``_to_device`` (the main function's device half), ``async_h2d`` the main
    function's body ``_async_h2d`` as a whole.
    """
    over = {
        k: v for k, v in (("_prepare", prepare), ("_stage", stage), ("_to_device", to_device)) if v is not None
    }
    inner = async_h2d if async_h2d is not None else (rebind(h2d._async_h2d, **over) if over else h2d._async_h2d)
    main = rebind(h2d.async_tensor_h2d, _async_h2d=inner)
    cpu_over = {k: v for k, v in over.items() if k in ("_prepare", "_stage")}
    cpu = rebind(h2d.async_tensor_h2d_cpu, **cpu_over) if cpu_over else h2d.async_tensor_h2d_cpu
    return main, cpu
