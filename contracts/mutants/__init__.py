"""Deliberately broken implementations ("mutants"), each the reference with one realistic bug.

One module per contract area declares its mutants with ``@mutant(killed_by=..., needs=...)``
(:mod:`contracts.mutants.base`); :data:`MUTANTS` maps each name to its record. Every name
is also a factory of this package, so a mutant is a target like any other::

    pytest --h2d-impl h2d_contracts.contracts.mutants:broadcast_into_out

shows what a failing run looks like. The kit's meta-tests hunt each mutant with the
contracts that must reject it (docs/mutants.md has the catalogue and its kill table).
"""

from __future__ import annotations

from typing import Any

from . import (  # noqa: F401 - registers the mutants
    bad_input,
    buffer,
    buffer_utils,
    buffer_utils_more,
    cpu_path,
    dtype,
    engine,
    gpu,
    gpu_round_kinds,
    input_untouched,
    no_alias,
    no_target,
    out,
    r36_kinds,
    r38_kinds,
    r39_kinds,
    r40_kinds,
    r41_kinds,
    r42_kinds,
    r44_kinds,
    r45_kinds,
    r46_kinds,
    r47_kinds,
    r49_kinds,
    r50_kinds,
    r51_kinds,
    r52_kinds,
    r53_kinds,
    r54_kinds,
    r56_kinds,
    r57_kinds,
    r58_kinds,
    r59_kinds,
    r60_kinds,
    reliability,
    scale,
    sequence,
    side_effects,
    values,
)
from .base import MUTANTS, NEEDS, Mutant, mutant

__all__ = ["MUTANTS", "NEEDS", "Mutant", "mutant"]


def __getattr__(name: str) -> Any:
    """Every mutant's factory by its name (``h2d_contracts.contracts.mutants:broadcast_into_out``)."""
    try:
        return MUTANTS[name].factory
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
