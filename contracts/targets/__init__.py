"""Target loading (``--h2d-impl``) and the built-in targets.

Targets are named by ``--h2d-impl NAME``: a built-in (:data:`BUILTIN_TARGETS`) or
``package.module:factory`` where ``factory()`` returns a
:class:`~h2d_contracts.harness.target.Target` (the protocol, re-exported here and as
``h2d_contracts.contracts.Target``). A trailing ``[cpu-variant]`` names a target's
CPU-platform variant as a target of its own.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import traceback
from collections.abc import Callable
from typing import Any, cast

from h2d_contracts.harness.target import (
    CALL_MARK_ENV,
    CAPABILITIES,
    INPUT_KINDS,
    Target,
    forget_last_call,
    instrumented,
    last_call,
    run_fresh,
    torch_pin_memory_available,
)

__all__ = [
    "BUILTIN_TARGETS",
    "CAPABILITIES",
    "INPUT_KINDS",
    "Target",
    "TargetLoadError",
    "forget_last_call",
    "instrumented",
    "last_call",
    "load_target",
    "run_fresh",
    "torch_pin_memory_available",
]


def _reference() -> Target:
    from h2d_contracts import h2d_impl

    return Target(
        name="reference",
        async_tensor_h2d=h2d_impl.async_tensor_h2d,
        buffer_cls=h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda", "buffer-utils"}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes="h2d_impl, the kit's embedded reference",
        empty_cache=h2d_impl.empty_staging_cache,
        buffer_utils=h2d_impl.buffer_utils,
    )


def _reference_cpu() -> Target:
    from h2d_contracts import h2d_impl

    return Target(
        name="reference-cpu",
        async_tensor_h2d=h2d_impl.async_tensor_h2d_cpu,
        buffer_cls=h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant"}),
        pin_memory_available=lambda: False,
        version=h2d_impl.__version__,
        notes="h2d_impl.async_tensor_h2d_cpu as the main function (CPU platform)",
    )


def _builtin(module: str, name: str) -> Callable[[], Target]:
    """A built-in whose factory lives in ``contracts.targets.<module>`` (imported only when the target is loaded)."""

    def factory() -> Target:
        return cast(Target, getattr(importlib.import_module(f"{__name__}.{module}"), name)())

    factory.__name__ = name
    return factory


#: name -> factory for the built-in targets. The vllm and sglang ones import the installed
#: engine when loaded (docs/targets.md).
BUILTIN_TARGETS: dict[str, Callable[[], Target]] = {
    "reference": _reference,
    "reference-cpu": _reference_cpu,
    "vllm": _builtin("vllm", "vllm_target"),
    "vllm-device-dtype": _builtin("vllm", "vllm_device_dtype_target"),
    "vllm-pin-memory": _builtin("vllm", "vllm_pin_memory_target"),
    "sglang": _builtin("sglang", "sglang_target"),
}


#: Set in a fresh process a contract starts: the first call into the target writes this file.


class TargetLoadError(ValueError):
    """``--h2d-impl`` could not be turned into a Target; the message says why and what was expected."""


_VARIANT = "[cpu-variant]"


def load_target(spec: str) -> Target:
    """Resolve ``--h2d-impl`` to a Target.

    Args:
        spec: a built-in name (see :data:`BUILTIN_TARGETS`) or ``"package.module:factory"``,
            optionally followed by ``[cpu-variant]`` (that target's CPU-platform variant).

    Raises:
        TargetLoadError: unknown name, malformed spec, a factory that raised (its type and
            traceback kept), a factory that does not return a Target, or a function that is
            not a factory at all.
        ImportError: the module of a ``module:factory`` spec cannot be imported (with a hint).
    """
    variant = spec.endswith(_VARIANT)
    base = spec[: -len(_VARIANT)] if variant else spec
    target = _load(base)
    if not target.spec:
        target = dataclasses.replace(target, spec=base)
    if variant:
        target = target.cpu_variant_target()
    mark = os.environ.get(CALL_MARK_ENV)
    if mark:
        target = instrumented(target, lambda: _touch(mark))
    return target


def _touch(path: str) -> None:
    if not os.path.exists(path):
        with open(path, "w"):
            pass


#: Where a ``package.module:factory`` spec's module is looked for, for ImportError hints.
IMPORT_HINT = (
    "the module must be importable where pytest runs: install its package (pip install -e .), or put its folder on "
    'PYTHONPATH (PYTHONPATH=. pytest ...), or set pythonpath = ["."] under [tool.pytest.ini_options]; '
    "`python -m pytest` also puts the current folder on sys.path, plain `pytest` does not"
)


def _describe_callable(obj: Any) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return f"a {type(obj).__name__}"
    kind = "class" if inspect.isclass(obj) else "function"
    return f"a {kind} taking {sig}"


def _load(spec: str) -> Target:
    if spec in BUILTIN_TARGETS:
        return _call_factory(BUILTIN_TARGETS[spec], spec)
    if ":" not in spec:
        raise TargetLoadError(
            f"{spec!r} is not a known target; use one of {sorted(BUILTIN_TARGETS)} or 'package.module:factory'"
        )
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ModuleNotFoundError(
                f"No module named {exc.name!r} (for --h2d-impl {spec!r}): {IMPORT_HINT}", name=exc.name
            ) from exc
        raise
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise TargetLoadError(f"module {module_name!r} has no attribute {attr!r}") from None
    if isinstance(factory, Target):
        return factory
    if not callable(factory):
        raise TargetLoadError(
            f"{module_name}.{attr} is a {type(factory).__name__}, not a factory returning h2d_contracts.contracts.Target"
        )
    try:
        required = [
            p
            for p in inspect.signature(factory).parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
    except (TypeError, ValueError):
        required = []
    if required:
        raise TargetLoadError(
            f"{module_name}.{attr}: expected a factory returning h2d_contracts.contracts.Target (called with no arguments), "
            f"got {_describe_callable(factory)}. If this is your async_tensor_h2d, wrap it: "
            f"def target(): return Target(name='mine', async_tensor_h2d={attr}, capabilities=frozenset({{'out', 'cuda'}}))"
        )
    return _call_factory(factory, spec)


def _call_factory(factory: Callable[[], Any], spec: str) -> Target:
    try:
        target = factory()
    except (TargetLoadError, ImportError):
        raise
    except Exception as exc:  # keep the type and the traceback for the user
        tb = "".join(traceback.format_exception(exc))
        raise TargetLoadError(f"the factory of --h2d-impl {spec!r} raised {type(exc).__name__}: {exc}\n{tb}") from exc
    if not isinstance(target, Target):
        kind = f"{type(target).__module__}.{type(target).__qualname__}"
        hint = (
            " (a Target class of another import path: import it as `from h2d_contracts.contracts import Target`)"
            if type(target).__name__ == "Target"
            else ""
        )
        raise TargetLoadError(
            f"the factory of --h2d-impl {spec!r} returned {kind}, not h2d_contracts.contracts.Target{hint}"
        )
    return target
