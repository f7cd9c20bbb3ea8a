"""The stream contract: copies are ordered on the caller's current stream (out= and fresh results), on every device."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable

from ..values import check_values
from .timing import (
    busy,
    requires_cuda,
)


@check("stream")
def check_stream_out(
    target: Target, data: Any, kwargs: dict[str, Any], *, current_device: int | None = None, busy_ms: float = 50.0
) -> None:
    """stream: the copy into ``out`` is ordered on the *current* stream of ``out``'s device.

    On a side stream ``s``: queue spin work, then a fill of ``out`` with a sentinel, then
    the call. On ``s`` the order is spin, fill, copy: ``out`` ends with the data. A copy
    put on another stream runs first and the fill overwrites it. With
    ``current_device`` set, the call is made while another device is current (the
    target device's current stream must still be used).
    """
    target.require("out", "stream")
    out = kwargs["out"]
    device = out.device
    requires_cuda(target, "stream", device)
    call = target.describe_call(data, kwargs) + "  # under torch.cuda.stream(side stream)"
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    side = torch.cuda.Stream(device)
    synchronize()
    with torch.cuda.stream(side):
        busy(busy_ms, device)
        out.view(torch.uint8).fill_(0x7B) if out.element_size() == 1 else out.fill_(123)
        if current_device is None:
            result = call_valid("stream", target, data, kwargs)
        else:
            with torch.cuda.device(current_device):
                result = call_valid("stream", target, data, kwargs)
    synchronize()
    assert_same_values(result, expected, contract="stream", call=call)


@check("stream", valid_call=True)
def check_stream_no_out(target: Target, data: Any, kwargs: dict[str, Any], *, busy_ms: float = 200.0) -> None:
    """stream: without ``out``, the copy runs on the current (side) stream, not behind the busy default stream.

    The default stream is kept busy; the call is made under a side stream ``s``; after
    ``s.synchronize()`` (the default stream still busy) the result must already hold
    the data. The result's memory is pre-poisoned through the caching allocator so a
    copy still queued elsewhere shows as poison.
    """
    device = resolve_device(kwargs)
    requires_cuda(target, "stream", device)
    call = target.describe_call(data, kwargs) + "  # under torch.cuda.stream(side stream)"
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    if expected.numel() == 0:
        return
    side = torch.cuda.Stream(device)
    synchronize()
    with torch.cuda.stream(side):
        poison = torch.full((expected.numel() * expected.element_size(),), 0x7B, dtype=torch.uint8, device=device)
        del poison
    done = busy(busy_ms, device)  # on the default stream of device
    with torch.cuda.stream(side):
        result = call_valid("stream", target, data, kwargs)
        side.synchronize()
        if done.query():
            synchronize()
            raise NotApplicable(
                f"stream: inconclusive, the {busy_ms:.0f} ms busy period ended before the call returned"
            )
        seen = result.to("cpu")  # a D2H on the side stream, ordered after the side stream's H2D only
        torch.cuda.current_stream(device).synchronize()
    synchronize()
    assert_same_values(
        seen, expected, contract="stream", call=call + "  # read on the side stream while the default stream was busy"
    )


# --------------------------------------------------------------------------- device-hygiene


@prop("stream", cap=10)
def prop_stream(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: the copy is ordered on the current stream (side stream), with and without out."""
    requires_cuda(target, "stream", device)

    def body(data: st.DataObject) -> None:
        use_out = "out" in target.capabilities and data.draw(st.booleans(), label="with out")
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                out=use_out,
                shape=hs.shapes(min_dims=1, min_side=1),
            ),
            label="call",
        )
        if use_out:
            check_stream_out(target, call.data, call.kwargs)
        else:
            check_stream_no_out(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("stream", cap=10)
def prop_cross_device(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: a non-current device's index and current stream are honoured (device="cuda:1", out on cuda:1)."""
    requires_cuda(target, "stream", device)
    if torch.cuda.device_count() < 2:
        raise NotApplicable(
            f"stream: cross-device contract needs 2 CUDA devices, this machine has {torch.cuda.device_count()}"
        )
    current = device.index
    other = torch.device("cuda", (current + 1) % torch.cuda.device_count())

    def body(data: st.DataObject) -> None:
        with torch.cuda.device(current):
            call = data.draw(
                hs.h2d_calls(other, inputs=target.inputs, requires=target.requires, out=False, pass_device=True),
                label="call",
            )
            check_values(target, call.data, call.kwargs)
            if "out" in target.capabilities:
                call = data.draw(
                    hs.h2d_calls(
                        other,
                        inputs=target.inputs,
                        requires=target.requires,
                        out=True,
                        shape=hs.shapes(min_dims=1, min_side=1),
                    ),
                    label="out call",
                )
                check_stream_out(target, call.data, call.kwargs, current_device=current)

    run_given(body, overrides)
