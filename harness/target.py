"""The implementation protocol the contracts are written against: :class:`Target`.

A *target* bundles one implementation of the H2D utilities behind a fixed interface:

- ``async_tensor_h2d(data, device=None, dtype=None, out=None) -> torch.Tensor``
- ``buffer_cls(*size, dtype, device, pin_memory, with_numpy=True)`` with ``.cpu``,
  ``.gpu``, ``.np``, ``copy_to_gpu(n=None)``, ``copy_to_cpu(n=None)`` (optional)
- ``cpu_variant``: the CPU-platform ``async_tensor_h2d`` (optional)

plus what it declares about itself: ``capabilities`` (what it has), ``inputs`` (its input
domain: which kinds of ``data`` its function accepts) and ``arg_names`` (its own names
for the protocol's arguments). A contract that needs what the target lacks raises
:class:`~h2d_contracts.harness.violations.NotApplicable`, reported as "not applicable",
never as a pass or a fault.

The protocol is the harness's, because every piece of it calls targets; users import it
as ``h2d_contracts.contracts.Target``. Loading a target by its ``--h2d-impl`` spec and
the built-in targets are in :mod:`h2d_contracts.contracts.targets`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import os
import subprocess
import sys
import tempfile
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast, overload

import torch

from h2d_contracts.strategies.describe import describe_call, import_path_lines
from h2d_contracts.strategies.host import torch_pin_memory_available

from . import accounting, contexts
from .violations import NotApplicable

__all__ = [
    "BUFFER_UTILS",
    "CALL_MARK_ENV",
    "CAPABILITIES",
    "INPUT_KINDS",
    "Target",
    "forget_last_call",
    "instrumented",
    "last_call",
    "run_fresh",
    "torch_pin_memory_available",
]

_LAST = threading.local()
_T = TypeVar("_T")


def forget_last_call() -> None:
    """Drop this thread's record of the last call (it holds the call's data alive: a retention check must not count it)."""
    _LAST.call = None


def last_call() -> str:
    """The last call a contract made into a target's ``async_tensor_h2d`` (this thread), as Python source; '' if none."""
    recorded = getattr(_LAST, "call", None)
    if recorded is None:
        return ""
    target, data, kwargs = recorded
    try:
        return cast(str, target.describe_call(data, kwargs))
    except Exception:  # noqa: BLE001 - a report helper must not fail the report
        return f"{target.fn_name}(<{type(data).__name__}>, {sorted(kwargs)})"


#: Capabilities a target may declare.
#: - "out": ``async_tensor_h2d`` accepts ``out=``
#: - "buffer": ``buffer_cls`` is a CpuGpuBuffer
#: - "cpu-variant": ``cpu_variant`` is the CPU-platform function
#: - "cuda": the main function can target CUDA devices (False for CPU-platform targets)
#: - "buffer-utils": ``buffer_utils`` holds Model Runner V2's transfer utilities
CAPABILITIES = frozenset({"out", "buffer", "cpu-variant", "cuda", "buffer-utils"})

#: Kinds of ``data`` a target's function may accept (its input domain, :attr:`Target.inputs`).
#: - "list": (nested) lists of Python numbers; "tuple": the same as tuples (or mixed)
#: - "ndarray": numpy arrays; "tensor": CPU tensors; "list-of-arrays": lists of ndarrays
#: - "scalar": a bare Python or numpy scalar (a 0-d array or tensor is an "ndarray" or "tensor")
INPUT_KINDS = frozenset({"list", "tuple", "ndarray", "tensor", "list-of-arrays", "scalar"})

#: The classes a target's ``buffer_utils`` may hold (vLLM 0.33.0's Model Runner V2 utilities).
BUFFER_UTILS = (
    "UvaBuffer",
    "NonUvaBuffer",
    "UvaBufferPool",
    "UvaBackedTensor",
    "StagedWriteTensor",
    "FusedStagedWriter",
)


@dataclass(frozen=True)
class Target:
    """One implementation under test.

    Attributes:
        name: short name shown in reports (e.g. ``"reference"``).
        async_tensor_h2d: the function under test, called as
            ``async_tensor_h2d(data, **kwargs)`` with ``device``/``dtype``/``out``
            passed by keyword, and only when the test means to pass them; under the
            calling context ``positional`` (:mod:`harness.contexts`) the arguments in
            :attr:`positional` go by position instead.
        buffer_cls: the ``CpuGpuBuffer`` class (or any callable building one), or None.
        cpu_variant: the CPU-platform ``async_tensor_h2d``, or None.
        capabilities: subset of :data:`CAPABILITIES`.
        pin_memory_available: what the target believes about pinning on this machine.
        version: version string of the implementation, for reports.
        notes: free text for reports (e.g. how the adapter maps an old signature).
        spec: the ``--h2d-impl`` string that loads this target (set by :func:`load_target`):
            what a fresh process (``device-hygiene``, a reproduction script) loads.
        empty_cache: releases the target's own caches of pinned host or device memory
            (a staging pool), as ``torch._C._host_emptyCache()`` does for torch's; None
            if it keeps none. The hygiene contract calls it at quiescence before reading
            memory, so a bounded cache is not taken for a leak.
        inputs: the input domain, a subset of :data:`INPUT_KINDS` (default: all). A call
            with ``data`` of another kind is outside what the function declares: contracts
            draw only inside the domain and report the rest as "not applicable" (SGLang's
            ``async_h2d`` takes lists only).
        requires: the protocol's keyword arguments the function cannot do without (SGLang's
            ``async_h2d`` takes ``dtype`` and ``device`` as required keywords; vLLM <= 0.23
            has no default for either): valid calls are drawn with them, a table's row
            without them is outside the domain ("not applicable"). The refusal of a call
            without ``device`` (contract ``target``) is still judged.
        arg_names: the function's own names for the protocol's arguments where they differ
            (``{"device": "target_device"}`` for vLLM <= 0.20): a refusal naming either
            names the argument.
        positional: the protocol's arguments the function takes by position after ``data``, in
            order: ``("device", "dtype", "out")`` for vLLM's ``async_tensor_h2d(data, device=None,
            dtype=None, out=None)`` and the reference (vLLM's call sites write
            ``async_tensor_h2d(ids, "cuda")``); ``()`` for a keyword-only function (SGLang's
            ``async_h2d(args, *, dtype, device)``) or an adapter that takes keywords only.
        call_name: the name ``call:`` lines and reproductions give the function (default: its
            own ``__name__``; set it when the factory wraps the function in a lambda).
        buffer_utils: Model Runner V2's transfer utilities (vLLM's ``vllm/v1/worker/gpu/buffer_utils.py``):
            an object with the classes ``UvaBuffer``, ``NonUvaBuffer``, ``UvaBufferPool``,
            ``UvaBackedTensor``, ``StagedWriteTensor`` and ``FusedStagedWriter`` as
            attributes (a module will do), or None; capability ``"buffer-utils"``.
        host_copy: whether the main function, pointed at the host (``device="cpu"``),
            promises a copy (a result that shares no memory with ``data``). True for the
            reference and by default; False for functions whose host path only stands in
            for a device (vLLM's ``t.to(device)`` is a no-op for ``device="cpu"``, never
            for a GPU), where aliasing on the host says nothing about a device run.
    """

    name: str
    async_tensor_h2d: Callable[..., torch.Tensor]
    buffer_cls: Callable[..., Any] | None = None
    cpu_variant: Callable[..., torch.Tensor] | None = None
    capabilities: frozenset[str] = field(default_factory=lambda: frozenset({"out", "cuda"}))
    pin_memory_available: Callable[[], bool] = torch_pin_memory_available
    version: str = "unknown"
    notes: str = ""
    spec: str = ""
    empty_cache: Callable[[], Any] | None = None
    inputs: frozenset[str] = INPUT_KINDS
    arg_names: Mapping[str, str] = field(default_factory=dict)
    host_copy: bool = True
    requires: frozenset[str] = frozenset()
    call_name: str = ""
    buffer_utils: Any = None
    positional: tuple[str, ...] = ("device", "dtype", "out")

    def __post_init__(self) -> None:
        unknown = set(self.capabilities) - CAPABILITIES
        if unknown:
            raise ValueError(
                f"Target {self.name!r}: capabilities has unknown {sorted(unknown)}; known: {sorted(CAPABILITIES)}"
            )
        if "buffer" in self.capabilities and self.buffer_cls is None:
            raise ValueError(f"Target {self.name!r} declares 'buffer' but buffer_cls is None")
        if "buffer-utils" in self.capabilities and self.buffer_utils is None:
            raise ValueError(f"Target {self.name!r} declares 'buffer-utils' but buffer_utils is None")
        if "cpu-variant" in self.capabilities and self.cpu_variant is None:
            raise ValueError(f"Target {self.name!r} declares 'cpu-variant' but cpu_variant is None")
        unknown = set(self.inputs) - INPUT_KINDS
        if unknown or not self.inputs:
            raise ValueError(
                f"Target {self.name!r}: inputs must be a non-empty subset of {sorted(INPUT_KINDS)}, got {sorted(self.inputs)}"
            )
        unknown = set(self.requires) - {"device", "dtype", "out"}
        if unknown:
            raise ValueError(
                f"Target {self.name!r}: requires names {sorted(unknown)}; only the protocol's device, dtype and out can be required"
            )
        if len(set(self.positional)) != len(self.positional) or not set(self.positional) <= {"device", "dtype", "out"}:
            raise ValueError(
                f"Target {self.name!r}: positional must name distinct protocol arguments (device, dtype, out), "
                f"got {self.positional!r}"
            )
        if not callable(self.async_tensor_h2d):
            raise TypeError(
                f"Target {self.name!r}: async_tensor_h2d must be callable, got {type(self.async_tensor_h2d).__name__}"
            )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How Hypothesis prints the target in a falsifying example (its fixture argument): by name and spec only."""
        del cycle
        printer.text(f"<target {self.name!r} ({self.spec or 'built-in'})>")

    def require(self, capability: str, contract: str) -> None:
        """Raise NotApplicable unless the target declares ``capability``."""
        if capability not in self.capabilities:
            raise NotApplicable(
                f"contract '{contract}' needs capability '{capability}', which target '{self.name}' does not declare"
            )

    def require_input(self, kind: str, contract: str) -> None:
        """Raise NotApplicable unless ``kind`` (one of :data:`INPUT_KINDS`) is in the target's input domain."""
        if kind not in self.inputs:
            raise NotApplicable(
                f"contract '{contract}': data of kind '{kind}' is outside target '{self.name}''s declared inputs {sorted(self.inputs)}"
            )

    def accepts_call(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether a call's keywords hold every argument in :attr:`requires`."""
        return all(kwargs.get(k) is not None for k in self.requires)

    def accepts(self, kind: str) -> bool:
        """Whether ``kind`` (one of :data:`INPUT_KINDS`) is in the input domain."""
        return kind in self.inputs

    def pins_host(self) -> bool:
        """Whether an engine using this target pins its own host tensors and buffers: what the target believes of
        this machine (vLLM's ``is_pin_memory_available()``), where torch can pin at all."""
        return bool(self.pin_memory_available()) and torch_pin_memory_available()

    def supports_device(self, device: torch.device) -> bool:
        """Whether the main function may be pointed at ``device``."""
        return device.type == "cpu" or "cuda" in self.capabilities

    @property
    def fn_name(self) -> str:
        """The function name ``call:`` lines and reproductions use: :attr:`call_name` if given, else the
        function's own ``__name__`` (through ``functools.wraps`` adapters), ``async_tensor_h2d`` for one
        without a usable name (a lambda); a CPU-variant entry point named like the main function gets ``_cpu``."""
        if self.call_name:
            return self.call_name
        name = getattr(inspect.unwrap(self.async_tensor_h2d), "__name__", "")
        if not name.isidentifier():
            name = "async_tensor_h2d"
        return f"{name}_cpu" if self.name.endswith("[cpu-variant]") and not name.endswith("_cpu") else name

    @property
    def buffer_name(self) -> str:
        """The class name ``call:`` lines give the buffer: ``buffer_cls.__name__``, ``CpuGpuBuffer`` if it has none."""
        name = getattr(self.buffer_cls, "__name__", "")
        return name if name.isidentifier() else "CpuGpuBuffer"

    def own_call(self, data: Any, *args: Any, **kwargs: Any) -> torch.Tensor:
        """Call the main function with the function's own argument names (as ``call:`` lines show them); arguments
        given by position (a ``call:`` line of the calling context ``positional``) go by position, as printed.

        Raises:
            TypeError: more arguments by position than :attr:`positional` names.
        """
        if len(args) > len(self.positional):
            raise TypeError(
                f"{self.fn_name}: at most {len(self.positional)} arguments by position after data, got {len(args)}"
            )
        protocol = {own: name for name, own in self.arg_names.items()}
        named = {protocol.get(k, k): v for k, v in kwargs.items()}
        if not args:
            return self.call(data, named)
        with contexts.calling_context("positional"):
            return self.call(data, {**dict(zip(self.positional, args)), **named})

    def preamble(self) -> str:
        """Python source after which a ``call:`` line of this target runs as printed: the target loaded by its
        spec, its function, buffer class and Model Runner V2 classes bound to the names ``call:`` lines use."""
        lines = ["import numpy as np", "import torch", ""]
        path = import_path_lines(self.spec, os.getcwd())
        lines += path + ([""] if path else [])
        lines += ["from h2d_contracts.contracts import load_target", "from h2d_contracts.contracts.out import WriteLog"]
        lines += ["", f"target = load_target({self.spec!r})"]
        lines.append(f"{self.fn_name} = target.own_call  # {self.name}'s function, called in its own argument names")
        if "cpu-variant" in self.capabilities:
            variant = self.cpu_variant_target()
            lines.append(f"{variant.fn_name} = target.cpu_variant_target().own_call")
        if self.buffer_cls is not None:
            lines.append(f"{self.buffer_name} = target.buffer_cls")
        if self.buffer_utils is not None:  # Model Runner V2's classes, by the names the buffer-utils call: lines use
            lines += [f"{n} = target.buffer_utils.{n}" for n in BUFFER_UTILS if getattr(self.buffer_utils, n, None)]
        return "\n".join(lines) + "\n"

    def describe_call(self, data: Any, kwargs: Mapping[str, Any]) -> str:
        """A call of this target as Python source in its own names: ``async_h2d([1, 2], dtype=torch.int32, device=...)``,
        the ambient calling context noted (``# under torch.no_grad()``)."""
        text = describe_call(
            data, dict(kwargs), fn=self.fn_name, arg_names=self.arg_names, positional=self._by_position(kwargs)
        )
        under = contexts.describe()
        return text if not under else text + ("; " if "  # " in text else "  # ") + under

    def argument_names(self, protocol: str) -> tuple[str, ...]:
        """The names a refusal may use for the protocol argument ``protocol``: it and the target's own name for it."""
        own = self.arg_names.get(protocol)
        return (protocol,) if own is None or own == protocol else (protocol, own)

    def _by_position(self, kwargs: Mapping[str, Any]) -> tuple[str, ...]:
        """The arguments a call passes by position: under the calling context ``positional``, :attr:`positional` up to
        the last one the call gives (an earlier one it omits goes as ``None``, its default); otherwise none."""
        if contexts.ambient() != "positional":
            return ()
        given = [i for i, name in enumerate(self.positional) if name in kwargs]
        return self.positional[: given[-1] + 1] if given else ()

    def call(self, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
        """Call the main function the way the tests do (recorded for :func:`last_call`): by keyword, or under the
        calling context ``positional`` with the arguments of :attr:`positional` by position."""
        _LAST.call = (self, data, kwargs)
        by_position = self._by_position(kwargs)
        args = [kwargs.get(name) for name in by_position]
        rest = {k: v for k, v in kwargs.items() if k not in by_position}
        with contexts.entered():  # the drawn calling context, around the target alone (harness.contexts)
            return self.async_tensor_h2d(data, *args, **rest)

    def cpu_variant_target(self) -> Target:
        """The CPU-platform variant as a target of its own, so every host contract runs against it too.

        Same ``out`` capability and input domain as the main function, no ``cuda``, no
        buffer; its name is ``<name>[cpu-variant]`` and its spec ``<spec>[cpu-variant]``.
        Raises NotApplicable without a declared variant.
        """
        self.require("cpu-variant", "cpu-variant entry point")
        return Target(
            name=f"{self.name}[cpu-variant]",
            async_tensor_h2d=self.cpu_variant,  # type: ignore[arg-type]
            capabilities=frozenset(self.capabilities & {"out"}),
            pin_memory_available=lambda: False,
            version=self.version,
            notes=f"the CPU-platform variant of {self.name}",
            spec=f"{self.spec}[cpu-variant]" if self.spec else "",
            inputs=self.inputs,
            arg_names=self.arg_names,
            requires=self.requires,
            positional=self.positional,
            host_copy=True,  # a CPU-platform function's host results are its real results
        )

    def entry_points(self) -> list[Target]:
        """Every ``async_tensor_h2d`` entry point the target declares: the main function, then the CPU variant if any."""
        return [self] + ([self.cpu_variant_target()] if "cpu-variant" in self.capabilities else [])


def instrumented(target: Target, on_call: Callable[[], None]) -> Target:
    """``target`` with ``on_call()`` run before every call of its functions (``async_tensor_h2d``, the CPU variant, ``buffer_cls``,
    the constructors of ``buffer_utils``).

    The plugin counts, per test, the calls a test made into the target (a test that passed
    without calling it is a kit error, never a pass); a fresh process started by a contract
    marks a file (``$H2D_CALL_MARK``) the same way. Same spec, name and declarations.
    """

    @overload
    def wrap(fn: None) -> None: ...
    @overload
    def wrap(fn: Callable[..., _T]) -> Callable[..., _T]: ...
    def wrap(fn: Callable[..., _T] | None) -> Callable[..., _T] | None:
        if fn is None:
            return None

        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> _T:
            on_call()
            return fn(*args, **kwargs)

        return counted

    utils = target.buffer_utils
    if utils is not None:
        utils = types.SimpleNamespace(
            **{name: wrap(getattr(utils, name, None)) for name in BUFFER_UTILS}, __wrapped__=target.buffer_utils
        )
    return dataclasses.replace(
        target,
        async_tensor_h2d=wrap(target.async_tensor_h2d),
        cpu_variant=wrap(target.cpu_variant),
        buffer_cls=wrap(target.buffer_cls),
        buffer_utils=utils,
    )


CALL_MARK_ENV = "H2D_CALL_MARK"


def run_fresh(
    what: str, script: str, args: list[str], marker: str, *, timeout_s: float, exit_zero: bool = False
) -> Any:
    """Run ``script`` (Python source) in a fresh interpreter and return the JSON it printed after ``marker``.

    For contracts whose readings are process-wide (device contexts, the caching
    allocators, once-per-process warnings): the child gets this process's ``sys.path`` as
    ``PYTHONPATH``, so it imports the kit and loads a target by its ``--h2d-impl`` spec as
    this process did. When the plugin counts calls, the child's first call into the target
    is reported back (``$H2D_CALL_MARK``), so the test counts as having called it.

    Raises:
        RuntimeError: naming ``what``, when no line starts with ``marker`` (or, with
            ``exit_zero``, when the child exited non-zero), with the end of its stderr.
    """
    with tempfile.TemporaryDirectory() as tmp:
        mark = os.path.join(tmp, "called")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), CALL_MARK_ENV: mark}
        proc = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout_s, env=env
        )
        if os.path.exists(mark):
            accounting.called()
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker)), None)
    if line is None or (exit_zero and proc.returncode != 0):
        raise RuntimeError(
            f"{what}: the fresh process ({' '.join(args)}) failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    return json.loads(line[len(marker) :])
