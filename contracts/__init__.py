"""Reusable contracts (properties) of H2D copy utilities, written against :class:`Target`.

One module per contract area holds its checks (``check_*(target, ...)``: one concrete
input, raises :class:`ContractViolation`) and its properties (``prop_*(target, device)``:
strategies bound to checks, registered under their catalogue id in
:data:`~harness.registry.PROPERTIES`). Catalogue ids: see :data:`CATALOGUE` and
docs/contracts.md. A contract that needs what the target lacks raises
:class:`NotApplicable`.
"""

from h2d_contracts.harness.registry import GPU_CONTRACTS, PROPERTIES, prop, run_property
from h2d_contracts.harness.target import CAPABILITIES, INPUT_KINDS, Target
from h2d_contracts.harness.violations import ContractViolation, KitError, NotApplicable, TargetTimeout
from h2d_contracts.strategies.describe import describe_call, describe_value

from . import (  # noqa: F401 - registers the properties
    bad_input,
    buffer,
    buffer_utils,
    cpu_path,
    dtype,
    engine,
    gpu,
    input_untouched,
    no_alias,
    no_target,
    out,
    reliability,
    sequence,
    side_effects,
    values,
)
from .targets import BUILTIN_TARGETS, TargetLoadError, load_target

#: The catalogue ids, in the order the docs list them.
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
    "side-effects",
    "sequence",
    "step-loop",
    "multi-stream",
    "concurrency",
    "hygiene",
    "device-hygiene",
    "uva",
    "pool",
    "staged-write",
    "fused-writes",
)

__all__ = [
    "BUILTIN_TARGETS",
    "CAPABILITIES",
    "CATALOGUE",
    "GPU_CONTRACTS",
    "INPUT_KINDS",
    "PROPERTIES",
    "ContractViolation",
    "KitError",
    "NotApplicable",
    "Target",
    "TargetLoadError",
    "TargetTimeout",
    "describe_call",
    "describe_value",
    "load_target",
    "prop",
    "run_property",
]
