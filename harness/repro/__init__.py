"""Reproductions: capture a check's arguments when it starts, write them back as a self-contained script.

Every check (:func:`harness.checks.check`) snapshots its arguments on entry
(:func:`capture`): tensors and arrays as the bytes of the memory they view, with their
dtype, shape, strides and offset, so that views, storage offsets, memory shared between
``data`` and ``out``, pinned memory, inference-mode and ``requires_grad`` tensors, byte
order, read-only and broadcast arrays, lists of arrays and 0-d values are all rebuilt as
they were, whatever the call did to them afterwards. When the check raises a
:class:`~harness.violations.ContractViolation`, :func:`write_script` writes a Python
script that loads the target by its ``--h2d-impl`` spec, rebuilds every argument with
statements (never a comment) and calls the same check, so it ends in the contract's own
assertion. :func:`verify` runs such a script in a fresh interpreter, against the target
(it must fail the same way) and against the reference (it must pass).

Large inputs are rebuilt by a short verified constructor (an ``arange`` progression or a
repeated pattern: :func:`strategies.describe.pattern_expr`) or, failing that, from their
bytes compressed into the script (up to :data:`MAX_EMBEDDED_BYTES`); past that a script
is marked not reproducible, with the reason.

Why not ``pickle`` or ``copy.deepcopy`` alone: neither keeps which objects share memory
(``data`` a view of ``out``'s storage), pinned-ness or inference mode, and neither gives
readable source.
"""

from .capture import MAX_EMBEDDED_BYTES, Captured, capture
from .script import write_script
from .verify import PRELOAD_ENV, Verdict, reference_twin, run_script, verify

__all__ = [
    "MAX_EMBEDDED_BYTES",
    "PRELOAD_ENV",
    "Captured",
    "Verdict",
    "capture",
    "reference_twin",
    "run_script",
    "verify",
    "write_script",
]
