"""Reusable contracts (properties) of H2D copy utilities, written against :class:`Target`.

Catalogue ids (the design brief, ../shared/DESIGN.md): values, dtype, out, target, no-alias, staging,
non-blocking, snapshot, stream, buffer, cpu-path, bad-input, input-untouched, concurrency,
hygiene. Each ``check_*`` raises
:class:`ContractViolation` (an AssertionError whose message starts with ``[id]``) or
:class:`NotApplicable` when the target lacks a capability the contract needs.
"""

from ._report import ContractViolation, NotApplicable, repro_call
from .target import BUILTIN_TARGETS, CAPABILITIES, Target, load_target

CATALOGUE = (
    "values",
    "dtype",
    "out",
    "target",
    "no-alias",
    "staging",
    "non-blocking",
    "snapshot",
    "stream",
    "buffer",
    "cpu-path",
    "bad-input",
    "input-untouched",
    "concurrency",
    "hygiene",
    "device-hygiene",
)

__all__ = [
    "BUILTIN_TARGETS",
    "CAPABILITIES",
    "CATALOGUE",
    "ContractViolation",
    "NotApplicable",
    "Target",
    "load_target",
    "repro_call",
]
