"""The implementation protocol the contracts are written against, and target loading.

A *target* bundles one implementation of the H2D utilities behind a fixed interface:

- ``async_tensor_h2d(data, device=None, dtype=None, out=None) -> torch.Tensor``
- ``buffer_cls(*size, dtype, device, pin_memory, with_numpy=True)`` with ``.cpu``,
  ``.gpu``, ``.np``, ``copy_to_gpu(n=None)``, ``copy_to_cpu(n=None)`` (optional)
- ``cpu_variant``: the CPU-platform ``async_tensor_h2d`` (optional)

plus what it declares about itself (``capabilities``). A contract that needs a missing
capability raises :class:`~contracts._report.NotApplicable`, reported as "not
applicable", never as a pass.

Targets are named by ``--h2d-impl NAME``: a built-in (``reference``, ``reference-cpu``)
or ``package.module:factory`` where ``factory()`` returns a :class:`Target`.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ._report import NotApplicable

__all__ = ["CAPABILITIES", "Target", "last_call", "load_target", "run_fresh", "BUILTIN_TARGETS"]

_LAST = threading.local()


def last_call() -> str:
    """The last call a contract made into a target's ``async_tensor_h2d`` (this thread), as Python source; '' if none."""
    recorded = getattr(_LAST, "call", None)
    if recorded is None:
        return ""
    from ._report import repro_call

    fn, data, kwargs = recorded
    try:
        return repro_call(data, kwargs, fn=fn)
    except Exception:  # noqa: BLE001 - a report helper must not fail the report
        return f"{fn}(<{type(data).__name__}>, {sorted(kwargs)})"

#: Capabilities a target may declare.
#: - "out": ``async_tensor_h2d`` accepts ``out=``
#: - "buffer": ``buffer_cls`` is a CpuGpuBuffer
#: - "cpu-variant": ``cpu_variant`` is the CPU-platform function
#: - "cuda": the main function can target CUDA devices (False for CPU-platform targets)
CAPABILITIES = frozenset({"out", "buffer", "cpu-variant", "cuda"})


def torch_pin_memory_available() -> bool:
    """Whether this process can allocate pinned host memory (a one-byte ``pin_memory=True`` try).

    The kit's own detection, independent of any target's: used as the default of
    :attr:`Target.pin_memory_available`, by the strategies and by the adapters.
    """
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, pin_memory=True)
    except RuntimeError:
        return False
    return True


@dataclass(frozen=True)
class Target:
    """One implementation under test.

    Attributes:
        name: short name shown in reports (e.g. ``"reference"``).
        async_tensor_h2d: the function under test, called as
            ``async_tensor_h2d(data, **kwargs)`` with ``device``/``dtype``/``out``
            passed by keyword, and only when the test means to pass them.
        buffer_cls: the ``CpuGpuBuffer`` class, or None.
        cpu_variant: the CPU-platform ``async_tensor_h2d``, or None.
        capabilities: subset of :data:`CAPABILITIES`.
        pin_memory_available: what the target believes about pinning on this machine.
        version: version string of the implementation, for reports.
        notes: free text for reports (e.g. how the adapter maps an old signature).
        spec: the ``--h2d-impl`` string that loads this target (set by :func:`load_target`):
            what a contract run in a fresh process (``device-hygiene``) loads.
        empty_cache: releases the target's own caches of pinned host or device memory
            (a staging pool), as ``torch._C._host_emptyCache()`` does for torch's; None
            if it keeps none. The hygiene contract calls it at quiescence before reading
            memory, so a bounded cache is not taken for a leak and memory something
            still references is.
    """

    name: str
    async_tensor_h2d: Callable[..., torch.Tensor]
    buffer_cls: type | None = None
    cpu_variant: Callable[..., torch.Tensor] | None = None
    capabilities: frozenset[str] = field(default_factory=lambda: frozenset({"out", "cuda"}))
    pin_memory_available: Callable[[], bool] = torch_pin_memory_available
    version: str = "unknown"
    notes: str = ""
    spec: str = ""
    empty_cache: Callable[[], Any] | None = None

    def __post_init__(self) -> None:
        unknown = set(self.capabilities) - CAPABILITIES
        if unknown:
            raise ValueError(f"Target {self.name!r} declares unknown capabilities {sorted(unknown)}; known: {sorted(CAPABILITIES)}")
        if "buffer" in self.capabilities and self.buffer_cls is None:
            raise ValueError(f"Target {self.name!r} declares 'buffer' but buffer_cls is None")
        if "cpu-variant" in self.capabilities and self.cpu_variant is None:
            raise ValueError(f"Target {self.name!r} declares 'cpu-variant' but cpu_variant is None")

    def require(self, capability: str, contract: str) -> None:
        """Raise NotApplicable unless the target declares ``capability``."""
        if capability not in self.capabilities:
            raise NotApplicable(f"contract '{contract}' needs capability '{capability}', which target '{self.name}' does not declare")

    def supports_device(self, device: torch.device) -> bool:
        """Whether the main function may be pointed at ``device``."""
        return device.type == "cpu" or "cuda" in self.capabilities

    @property
    def fn_name(self) -> str:
        """The function name ``call:`` lines use: ``async_tensor_h2d``, or ``async_tensor_h2d_cpu`` for a CPU-variant entry point."""
        return "async_tensor_h2d_cpu" if self.name.endswith("[cpu-variant]") else "async_tensor_h2d"

    def call(self, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
        """Call the main function the way the tests do (recorded for :func:`last_call`)."""
        _LAST.call = (self.fn_name, data, kwargs)
        return self.async_tensor_h2d(data, **kwargs)

    def cpu_variant_target(self) -> "Target":
        """The CPU-platform variant as a target of its own, so every host contract runs against it too.

        Same ``out`` capability as the main function, no ``cuda``, no buffer; its name
        is ``<name>[cpu-variant]``. Raises NotApplicable without a declared variant.
        """
        self.require("cpu-variant", "cpu-variant entry point")
        return Target(
            name=f"{self.name}[cpu-variant]",
            async_tensor_h2d=self.cpu_variant,  # type: ignore[arg-type]
            capabilities=frozenset(self.capabilities & {"out"}),
            pin_memory_available=lambda: False,
            version=self.version,
            notes=f"the CPU-platform variant of {self.name}",
        )

    def entry_points(self) -> list["Target"]:
        """Every ``async_tensor_h2d`` entry point the target declares: the main function, then the CPU variant if any."""
        return [self] + ([self.cpu_variant_target()] if "cpu-variant" in self.capabilities else [])


def _reference() -> Target:
    from h2d_contracts import h2d_impl

    return Target(
        name="reference",
        async_tensor_h2d=h2d_impl.async_tensor_h2d,
        buffer_cls=h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda"}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes="h2d_impl, the kit's embedded reference",
        empty_cache=h2d_impl.empty_staging_cache,
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


def _adapter(name: str) -> Callable[[], Target]:
    """A built-in whose factory lives in ``h2d_adapters`` (imported only when the target is loaded)."""

    def factory() -> Target:
        from h2d_contracts import h2d_adapters

        return getattr(h2d_adapters, name)()

    factory.__name__ = name
    return factory


#: name -> factory for the built-in targets. The vllm ones import the installed vllm
#: package when loaded (README: Downstream targets).
BUILTIN_TARGETS: dict[str, Callable[[], Target]] = {
    "reference": _reference,
    "reference-cpu": _reference_cpu,
    "vllm": _adapter("vllm_target"),
    "vllm-device-dtype": _adapter("vllm_device_dtype_target"),
    "vllm-pin-memory": _adapter("vllm_pin_memory_target"),
}


def run_fresh(what: str, script: str, args: list[str], marker: str, *, timeout_s: float, exit_zero: bool = False) -> Any:
    """Run ``script`` (Python source) in a fresh interpreter and return the JSON it printed after ``marker``.

    For contracts whose readings are process-wide (device contexts, the caching
    allocators): the child gets this process's ``sys.path`` as ``PYTHONPATH``, so it
    imports the kit and loads a target by its ``--h2d-impl`` spec as this process did.

    Raises:
        RuntimeError: naming ``what``, when no line starts with ``marker`` (or, with
            ``exit_zero``, when the child exited non-zero), with the end of its stderr.
    """
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout_s, env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker)), None)
    if line is None or (exit_zero and proc.returncode != 0):
        raise RuntimeError(f"{what}: the fresh process ({' '.join(args)}) failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(line[len(marker):])


def load_target(spec: str) -> Target:
    """Resolve ``--h2d-impl`` to a Target.

    Args:
        spec: a built-in name (see :data:`BUILTIN_TARGETS`) or ``"package.module:factory"``.

    Raises:
        ValueError: unknown name, malformed spec, or a factory that does not return a Target.
        ImportError: the module of a ``module:factory`` spec cannot be imported.
    """
    target = _load(spec)
    return target if target.spec else dataclasses.replace(target, spec=spec)


def _load(spec: str) -> Target:
    if spec in BUILTIN_TARGETS:
        return BUILTIN_TARGETS[spec]()
    if ":" not in spec:
        raise ValueError(f"{spec!r} is not a known target; use one of {sorted(BUILTIN_TARGETS)} or 'package.module:factory'")
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r}") from None
    if isinstance(factory, Target):
        return factory
    if not callable(factory):
        raise ValueError(f"{module_name}.{attr} is a {type(factory).__name__}, not a factory returning h2d_contracts.contracts.Target")
    target = factory()
    if not isinstance(target, Target):
        kind = f"{type(target).__module__}.{type(target).__qualname__}"
        hint = " (a Target class of another import path: import it as `from h2d_contracts.contracts import Target`)" if type(target).__name__ == "Target" else ""
        raise ValueError(f"{module_name}.{attr}() returned {kind}, not h2d_contracts.contracts.Target{hint}")
    return target
