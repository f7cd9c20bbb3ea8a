"""``values`` in a fresh process: the first call of its kind, where torch warns once per process (a read-only
ndarray, a list of ndarrays), must give the right result silently."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.oracle import expected_tensor, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import require_device
from h2d_contracts.harness.target import Target, run_fresh
from h2d_contracts.harness.violations import NotApplicable, fail

#: Inputs whose first conversion in a process makes torch warn once (TORCH_WARN_ONCE): a
#: read-only ndarray (``torch.from_numpy``: "The given NumPy array is not writable") and a
#: list of ndarrays (``torch.tensor``: "Creating a tensor from a list of numpy.ndarrays is
#: extremely slow"). A warning filter set wrongly around those conversions
#: (``simplefilter("ignore", None)``: the filter machinery then raises TypeError) changes
#: only the first such call of a process: the contract suite's mutation runs killed one
#: such mutant in one run and not in another, as the order of earlier tests decided.
FIRST_CALL_CASES = ("read-only int32 ndarray", "list of an int32 and a float32 ndarray")


def first_call_inputs() -> list[Any]:
    """The inputs of :data:`FIRST_CALL_CASES`, freshly built (a read-only int32 array; a list of two arrays)."""
    ro = np.arange(5, dtype=np.int32)
    ro.flags.writeable = False
    return [ro, [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.float32) + 0.5]]


_FIRST_CALL_SCRIPT = """
import json, sys, warnings
from h2d_contracts.contracts import load_target
from h2d_contracts.contracts.values import FIRST_CALL_CASES, first_call_inputs
spec, device = sys.argv[1], sys.argv[2]
target = load_target(spec)
found = []
for what, data in zip(FIRST_CALL_CASES, first_call_inputs()):  # the target first: nothing else has warned yet
    if what not in sys.argv[3:]:
        continue
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = target.call(data, {"device": device})
            found.append([what, str(got.dtype), got.cpu().tolist(), None, [f"{w.category.__name__}: {w.message}" for w in seen]])
        except Exception as exc:  # noqa: BLE001 - reported by the parent
            found.append([what, None, None, f"{type(exc).__name__}: {exc}", []])
print("H2D-FIRST " + json.dumps(found))
"""


@check("values")
def check_values_first_call(target: Target, device: torch.device, *, timeout_s: float = 120.0) -> None:
    """values: the first call of its kind in a fresh process (torch's once-per-process warnings) gives the right result, silently.

    Loads the target by its ``--h2d-impl`` spec in a fresh interpreter (``run_fresh``) and
    calls it first with each of :data:`FIRST_CALL_CASES` inside its declared inputs; the
    results (dtype, values) must equal the oracle's, computed here. Raises NotApplicable for
    a target without a spec (built in-process) or with neither case in its domain.
    """
    if not target.spec:
        raise NotApplicable(
            f"values (first call): needs a fresh process that loads the target by its --h2d-impl spec; target {target.name!r} has none"
        )
    cases = [
        (what, data)
        for what, data in zip(FIRST_CALL_CASES, first_call_inputs())
        if in_domain(target, data, {"device": device})
    ]
    if not cases:
        raise NotApplicable(
            f"values (first call): both cases lie outside target {target.name!r}'s declared inputs {sorted(target.inputs)}"
        )
    found = run_fresh(
        "values (first call)",
        _FIRST_CALL_SCRIPT,
        [target.spec, str(device), *(w for w, _ in cases)],
        "H2D-FIRST ",
        timeout_s=timeout_s,
    )
    for (what, dtype, values, error, warned), (_, data) in zip(found, cases):
        kwargs = {"device": device}
        call = target.describe_call(data, kwargs) + "  # the first such call in a fresh process"
        expected = expected_tensor(data, resolve_dtype(data, kwargs))
        if error is not None:
            fail(
                "values",
                f"a valid call raised when it was the first {what} of the process",
                got=error,
                expected="a tensor",
                call=call,
            )
        if dtype != str(expected.dtype) or values != expected.tolist():
            fail(
                "values",
                f"the first {what} of a process converts differently",
                got=f"{dtype} {values}",
                expected=f"{expected.dtype} {expected.tolist()}",
                call=call,
            )
        if warned:
            # a valid call prints nothing into the engine's log, and fails nothing under `python -W error`
            fail(
                "values",
                f"the first {what} of a process emitted a warning",
                got="; ".join(warned)[:300],
                expected="no warning (the data is only read)",
                call=call,
            )


@prop("values")
def prop_values_first_call(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: a read-only ndarray and a list of ndarrays, each the first of its kind in a fresh process (torch warns once per process)."""
    require_device(target, device, "values")
    del overrides  # deterministic: two fixed calls in one fresh process
    check_values_first_call(target, device)
