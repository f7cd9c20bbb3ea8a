"""What every mutant is built from: the :class:`Mutant` record, the ``@mutant`` decorator, the reference as a target.

A mutant is declared once, where its factory is written (``contracts/mutants/<area>.py``)::

    @mutant(killed_by=("out",))
    def broadcast_into_out() -> Target:
        \"\"\"out accepts a broadcastable shape ... (the first docstring line is its description)\"\"\"

``killed_by`` names the contracts that must reject it, ``by`` (optional) the properties
of those contracts that must (a size-threshold bug is the size tables' to find: hunting it
with every property first costs minutes), ``needs`` what it takes to show (``"cpu"``,
``"cuda"``, ``"2gpu"``, or ``"no-pinning"``: a host without pinned memory).
The meta-tests hunt every registered mutant with those contracts' properties and fail if
one survives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl

from ..targets import Target

__all__ = [
    "MUTANTS",
    "NEEDS",
    "Mutant",
    "ReferenceBuffer",
    "mutant",
    "parsed_device",
    "reference_target",
    "untyped_leaves",
]

#: What a mutant may need to show its bug.
NEEDS = ("cpu", "cuda", "2gpu", "no-pinning")


@dataclass(frozen=True)
class Mutant:
    """A broken target: ``factory()`` builds it; ``killed_by`` are the contracts that must reject it; ``needs`` one of :data:`NEEDS`."""

    name: str
    factory: Callable[[], Target]
    killed_by: tuple[str, ...]
    needs: str = "cpu"
    by: tuple[str, ...] = ()

    @property
    def doc(self) -> str:
        """The first line of the factory's docstring: what the bug is."""
        return (self.factory.__doc__ or "").strip().splitlines()[0]


#: name -> mutant, filled by :func:`mutant` as the area modules are imported.
MUTANTS: dict[str, Mutant] = {}


def mutant(
    *, killed_by: tuple[str, ...], needs: str = "cpu", by: tuple[str, ...] = ()
) -> Callable[[Callable[[], Target]], Callable[[], Target]]:
    """Register the decorated factory as a mutant named after it.

    Raises:
        ValueError: an unknown ``needs``, a name used twice, no docstring, or a property in
            ``by`` that is not a ``prop_*`` name.
    """
    if needs not in NEEDS:
        raise ValueError(f"needs must be one of {NEEDS}, got {needs!r}")
    if any(not p.startswith("prop_") for p in by):
        raise ValueError(f"by names properties (prop_*), got {by!r}")

    def register(factory: Callable[[], Target]) -> Callable[[], Target]:
        name = factory.__name__
        if name in MUTANTS:
            raise ValueError(f"mutant {name!r} is declared twice")
        if not (factory.__doc__ or "").strip():
            raise ValueError(f"mutant {name!r} needs a docstring saying what its bug is")
        MUTANTS[name] = Mutant(name, factory, tuple(killed_by), needs, tuple(by))
        return factory

    return register


def reference_target(
    name: str,
    fn: Callable[..., torch.Tensor] | None = None,
    *,
    buffer_cls: type | None = None,
    cpu_variant: Callable[..., torch.Tensor] | None = None,
    buffer_utils: Any = None,
) -> Target:
    """The reference as a target named ``mutant:<name>``, with ``fn``, ``buffer_cls``, ``cpu_variant`` or ``buffer_utils`` swapped in.

    The reference's Model Runner V2 utilities (capability ``buffer-utils``) come only with a
    mutant of them (``buffer_utils``): the other mutants leave those contracts not applicable.

    Its spec (``h2d_contracts.contracts.mutants:<name>``) is what a fresh process, or a
    reproduction script, loads.
    """
    return Target(
        name=f"mutant:{name}",
        async_tensor_h2d=fn or h2d_impl.async_tensor_h2d,
        buffer_cls=buffer_cls or h2d_impl.CpuGpuBuffer,
        cpu_variant=cpu_variant or h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset(
            {"out", "buffer", "cpu-variant", "cuda"} | ({"buffer-utils"} if buffer_utils else set())
        ),
        pin_memory_available=h2d_impl.pin_memory_available,
        version="mutant",
        buffer_utils=buffer_utils,
        spec=f"h2d_contracts.contracts.mutants:{name}",
        empty_cache=h2d_impl.empty_staging_cache,
        call_name="async_tensor_h2d",  # the reference's function with one bug: call lines keep its name
    )


class ReferenceBuffer(h2d_impl.CpuGpuBuffer):
    """Base for buffer mutants: the reference's CpuGpuBuffer, whose methods a mutant overrides."""


def parsed_device(device: Any) -> Any:
    """``device`` as a torch.device where torch can parse it, else as given (the reference then refuses it itself)."""
    try:
        return torch.device(device) if isinstance(device, str) else device
    except RuntimeError:
        return device


def untyped_leaves(obj: Any) -> Any:
    """``obj`` with every numpy scalar replaced by its Python number (the bug of losing a typed leaf's dtype)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return type(obj)(untyped_leaves(v) for v in obj)
    return obj
