"""The staging contract: every H2D copy leaves from pinned memory (a staging buffer), and pinned inputs are not staged again."""

from __future__ import annotations

import math
from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, run_given
from h2d_contracts.harness.target import Target, run_fresh
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.describe import describe_value

from .timing import (
    memcpy_kinds,
    requires_cuda,
)


@check("staging", valid_call=True)
def check_staging(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """staging: every H2D DMA of the call reads pinned memory (no "Pageable -> Device" memcpy)."""
    device = resolve_device(kwargs)
    requires_cuda(target, "staging", device)
    if not target.pin_memory_available():
        raise NotApplicable("staging: the target reports pinned memory unavailable on this machine")
    call = target.describe_call(data, kwargs)
    names, result = memcpy_kinds(lambda: call_valid("staging", target, data, kwargs))
    h2d = [n for n in names if "HtoD" in n]
    pageable = [n for n in h2d if "Pageable" in n]
    if pageable:
        fail(
            "staging",
            "H2D copy read pageable memory (the non_blocking copy can block the host)",
            got=h2d,
            expected="only 'Pinned -> Device' memcpys",
            call=call,
        )
    if result.numel() and not h2d:
        fail(
            "staging",
            "no H2D memcpy seen for a non-empty input",
            got=names,
            expected="at least one 'Memcpy HtoD'",
            call=call,
        )


_HOST_COUNTERS = ("active_requests.allocated", "allocations.allocated")


@check("staging", valid_call=True)
def check_pinned_not_restaged(target: Target, data: torch.Tensor, kwargs: dict[str, Any]) -> None:
    """staging: an already pinned, dense input (contiguous or a permutation of it) of the target dtype is DMA'd as is (no new pinned buffer)."""
    device = resolve_device(kwargs)
    requires_cuda(target, "staging", device)
    call = target.describe_call(data, kwargs)
    if not (data.is_pinned() and dense_layout(data) and data.dtype == resolve_dtype(data, kwargs)):
        raise ValueError(
            f"check_pinned_not_restaged needs a pinned dense input of the target dtype, got {describe_value(data)}"
        )
    call_valid("staging", target, data, kwargs)  # warm-up: lazy initialisation is not the call's cost
    synchronize()
    before = torch.cuda.host_memory_stats()
    names, _ = memcpy_kinds(lambda: call_valid("staging", target, data, kwargs))
    after = torch.cuda.host_memory_stats()
    grew = {k: after.get(k, 0) - before.get(k, 0) for k in _HOST_COUNTERS if after.get(k, 0) != before.get(k, 0)}
    if grew:
        fail(
            "staging",
            "an already pinned input was copied into a new pinned buffer",
            got=f"host allocator requests {grew}",
            expected="no pinned allocation",
            call=call,
        )
    if data.numel() and [n for n in names if "HtoD" in n] != ["Memcpy HtoD (Pinned -> Device)"]:
        fail(
            "staging",
            "an already pinned input should be copied by exactly one pinned DMA",
            got=names,
            expected="['Memcpy HtoD (Pinned -> Device)']",
            call=call,
        )


def dense_layout(t: torch.Tensor) -> bool:
    """Whether ``t``'s elements fill its bytes in some order of its dimensions (contiguous, ``.t()``, channels-last): no gaps, no overlaps."""
    if t.is_contiguous():
        return True
    dims = sorted((abs(st), sz) for st, sz in zip(t.stride(), t.shape) if sz != 1)
    expected = 1
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def staged_kind(data: Any, kwargs: dict[str, Any]) -> bool:
    """Inputs a target must snapshot: everything but a pinned tensor of the target dtype.

    docs/reference.md (zero-copy): an already pinned input is not copied again. A dense one (contiguous,
    ``.t()``, channels-last) is DMA'd as it lies; a view with gaps may be DMA'd as its byte
    span and gathered on the device (the reference does so up to a span of 4x its
    payload) or staged: both are correct, so no snapshot is required of it. A pinned input
    that needs a dtype conversion must be snapshotted (the conversion is host work).
    """
    if not isinstance(data, torch.Tensor):
        return True
    return not (data.is_pinned() and data.dtype == resolve_dtype(data, kwargs))


@prop("staging", cap=25)
def prop_staging(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: no "Pageable -> Device" memcpy for any input kind, layout, pinned or not, with or without out."""
    requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                out=None if "out" in target.capabilities else False,
            ),
            label="call",
        )
        check_staging(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("staging", cap=15)
def prop_staging_strided_pinned(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a strided pinned view (e.g. a column slice of a pinned 2-D buffer) is not DMA'd from pageable memory."""
    requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(["transposed", "sliced", "expanded"]), label="layout")
        t = data.draw(
            hs.cpu_tensors(shape=hs.shapes(min_dims=2, min_side=2), pinned=True, layout=layout), label="pinned view"
        )
        check_staging(target, t, {"device": device})

    run_given(body, overrides)


#: Tensor layouts whose elements fill their bytes (a permutation of contiguous): a pinned
#: input in one of them is DMA'd as it lies, never staged again (docs/reference.md: an already
#: pinned input is not copied again); the staging and snapshot contracts draw them.
DENSE_LAYOUTS = ("contiguous", "transposed", "channels_last")


#: Dense permutations of two to four dimensions, every side >= 2, as a table: random shapes
#: rarely have three sides > 1, and a density rule that holds for two dimensions only
#: (``expected = size`` for ``expected *= size``) survived them in the GPU mutation
#: run.
DENSE_PERMUTED_TABLE = (
    ((5, 3), "transposed"),
    ((2, 3, 4), "transposed"),
    ((2, 3, 4, 5), "transposed"),
    ((2, 3, 4, 5), "channels_last"),
)


@prop("staging", cap=10)
def prop_pinned_not_restaged(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a pinned, dense input (contiguous, transposed, channels-last) of the target dtype is not copied again."""
    requires_cuda(target, "staging", device)
    for shape, layout in DENSE_PERMUTED_TABLE:
        t = hs.tensor_in_layout(torch.arange(math.prod(shape), dtype=torch.float32).view(shape), layout, pinned=True)
        check_pinned_not_restaged(target, t, {"device": device})

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(DENSE_LAYOUTS), label="layout")
        t = data.draw(
            hs.cpu_tensors(shape=hs.shapes(min_dims=1, min_side=1), pinned=True, layout=layout), label="pinned tensor"
        )
        check_pinned_not_restaged(target, t, {"device": device})

    run_given(body, overrides)


#: Payload sizes for the non-blocking contract: blocking was measured from 4 MB up on an H200 (docs/reference.md).


_FRESH_DEFAULT_DEVICE_SCRIPT = """
import json, sys
import numpy as np, torch
from h2d_contracts.contracts import load_target
from h2d_contracts.contracts.gpu.timing import memcpy_kinds
spec, device = sys.argv[1], sys.argv[2]
target = load_target(spec)
with torch.device(device):  # the engine's default device, around the process's first call
    target.call(np.ones(4, np.int32), {"device": device})
names, _ = memcpy_kinds(lambda: target.call(np.ones(1 << 20, np.int32), {"device": device}))
print("H2D-FRESH-STAGING " + json.dumps(names))
"""


@check("staging")
def check_staging_after_default_device(target: Target, device: torch.device, *, timeout_s: float = 120.0) -> None:
    """staging (CUDA, a fresh process): with the process's first call made under ``with torch.device("cuda")`` (the
    default device engines set), a later 4 MiB ndarray call still copies from pinned memory.

    A probe of pinned memory that allocates without ``device="cpu"`` fails under a CUDA default
    device ("Only dense CPU tensors can be pinned") and, cached, turns every later call of the
    process pageable (an outside round's bug). Only a fresh process shows it: the suite's own
    process has probed long before. Raises NotApplicable for a target without an ``--h2d-impl`` spec.
    """
    requires_cuda(target, "staging", device)
    target.require_input("ndarray", "staging")
    if not target.spec:
        raise NotApplicable(f"staging (fresh process): target {target.name!r} has no --h2d-impl spec to load it by")
    if not target.pin_memory_available():
        raise NotApplicable("staging: the target reports pinned memory unavailable on this machine")
    names = run_fresh(
        "staging (fresh process)",
        _FRESH_DEFAULT_DEVICE_SCRIPT,
        [target.spec, str(device)],
        "H2D-FRESH-STAGING ",
        timeout_s=timeout_s,
    )
    h2d = [n for n in names if "HtoD" in n]
    if not h2d or any("Pageable" in n for n in h2d):
        fail(
            "staging",
            "a 4 MiB ndarray call after the process's first call was made under a CUDA default device",
            got=h2d or names,
            expected="only 'Pinned -> Device' memcpys",
            call=f"# a fresh process\nwith torch.device({str(device)!r}): f(np.ones(4, np.int32), device={str(device)!r})\n"
            f"f(np.ones(1 << 20, np.int32), device={str(device)!r})  # under torch.profiler",
        )


@prop("staging", table=True)
def prop_staging_fresh_default_device(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a fresh process whose first call runs under a CUDA default device still stages into pinned memory."""
    requires_cuda(target, "staging", device)
    target.require_input("ndarray", "staging")
    del overrides
    rows = Rows("staging after a default device")
    rows.row(check_staging_after_default_device, target, device)
    rows.finish()
