"""Contract ``no-alias``: the result never shares memory with the input; overwriting the input afterwards changes nothing.

Also on the host (``device="cpu"``) for targets whose host path promises a copy
(:attr:`Target.host_copy`: the reference, the CPU-platform variants); for a function whose
host path only stands in for a device (vLLM's ``t.to(device)``), aliasing on the host is
not applicable: no device copy ever aliases.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, mutate, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import (
    assert_same_values,
    expected_tensor,
    resolve_device,
    resolve_dtype,
    storage_span,
)
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

__all__ = ["check_no_alias"]


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Whether two storage byte spans (``storage_span``: ``[start, end)``, None without storage) intersect."""
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


@check("no-alias", valid_call=True)
def check_no_alias(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """no-alias: the result shares no memory with ``data`` (also on the CPU path), nor is it (or does it share memory
    with) the result of a second identical call, empty results included; mutating ``data`` afterwards changes nothing."""
    if resolve_device(kwargs).type == "cpu" and not target.host_copy:
        raise NotApplicable(
            f"no-alias on the host: target {target.name!r} declares host_copy=False (its host path stands in for a device, where a copy never aliases)"
        )
    call = target.describe_call(data, kwargs)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    result = call_valid("no-alias", target, data, kwargs)
    synchronize()
    span_in, span_out = storage_span(data), storage_span(result)
    if _overlap(span_in, span_out) and result.numel():
        fail(
            "no-alias",
            "result memory overlaps the input's",
            got=f"result {span_out} vs data {span_in}",
            expected="disjoint",
            call=call,
        )
    again = call_valid("no-alias", target, data, kwargs)
    synchronize()
    span_again = storage_span(again)
    shared = _overlap(span_out, span_again) and bool(result.numel())
    if again is result or shared:
        fail(
            "no-alias",
            "two identical calls returned the same tensor" if again is result else "two calls' results share memory",
            got=f"result {span_out} and the second call's {span_again}",
            expected="a new tensor from every call (the caller may write into it)",
            call=call + "  # called twice",
        )
    snapshot = copy.deepcopy(data) if isinstance(data, (list, tuple)) else None
    mutate(data)
    synchronize()
    assert_same_values(result, expected, contract="no-alias", call=call + "  # then data was overwritten")
    if snapshot is not None:
        data[:] = snapshot


@prop("no-alias")
def prop_no_alias(target: Target, device: torch.device, **overrides: Any) -> None:
    """no-alias: the result never shares memory with ndarray / tensor inputs, on every device."""
    require_device(target, device, "no-alias")
    kinds = tuple(accepted(target, ["ndarray", "tensor"], "no-alias"))

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, kinds=kinds, out=False), label="call"
        )
        check_no_alias(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("no-alias")
def prop_no_alias_layouts(target: Target, device: torch.device, **overrides: Any) -> None:
    """no-alias: one fixed input in every array and tensor layout (read-only and broadcast arrays included)."""
    require_device(target, device, "no-alias")
    del overrides  # deterministic: every layout every run

    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rows = Rows("no-alias layout table")
    for layout in hs.ARRAY_LAYOUTS:
        rows.row(check_no_alias, target, hs.array_in_layout(base.copy(), layout), {"device": device})
    for layout in hs.TENSOR_LAYOUTS:
        values = (
            torch.from_numpy(base.copy()).reshape(1, 2, 3, 4)
            if layout == "channels_last"
            else torch.from_numpy(base.copy())
        )
        rows.row(check_no_alias, target, hs.tensor_in_layout(values, layout, pinned=False), {"device": device})
    rows.finish()


@prop("no-alias", table=True, ladder=True)
def prop_no_alias_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """no-alias: ndarrays and tensors of 1 to 2**20 elements (one rung an octave), contiguous and of the target dtype, are copied (a table).

    A path that hands back a large input as it is (no copy where "nothing needs
    converting") above some size passes every small test. With and without ``dtype=``
    equal to the data's own.
    """
    require_device(target, device, "no-alias")
    sparse = overrides.pop("ladder", "full") == "sparse"
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["ndarray", "tensor"], "no-alias")
    rows = Rows("no-alias size ladder")
    for kind in kinds:  # empty inputs: a result is still a new tensor every call (no cached empty)
        empty = torch.zeros(0, dtype=torch.float32)
        rows.row(check_no_alias, target, empty.numpy() if kind == "ndarray" else empty, {"device": device})
    for k, kind in enumerate(kinds):
        for n in hs.ladder(rotation=k + 2, sparse=sparse):
            dtype = (torch.float32, torch.int64, torch.int32)[n % 3]
            source = hs.bulk_values(n, dtype, offset=n)
            payload: Any = source.numpy() if kind == "ndarray" else source
            kwargs: dict[str, Any] = {"device": device, "dtype": dtype} if n % 2 else {"device": device}
            rows.row(check_no_alias, target, payload, kwargs)
    rows.finish()
