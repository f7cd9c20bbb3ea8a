"""Contract ``cpu-path``: the CPU-platform variant agrees with the main path.

Differential testing in the manner of ``cupy.testing``: one input, both functions,
and the outcomes compared: same dtype, shape and bits, or the same exception type
("only one raised" and "different exception types" are both failures, reported with
both messages).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, cast

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import expect_raise, has_bytes, raw_storage
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.oracle import assert_same_values
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

__all__ = ["check_cpu_path_agrees"]


def _outcome(fn: Callable[..., torch.Tensor], data: Any, kwargs: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "result", fn(data, **kwargs)
    except Exception as exc:  # noqa: BLE001 - both sides' exceptions are compared, whatever they are
        return "raised", exc


@check("cpu-path")
def check_cpu_path_agrees(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """cpu-path: ``target.cpu_variant`` and ``target.async_tensor_h2d`` on a CPU target agree on values, dtype and error type."""
    target.require("cpu-variant", "cpu-path")
    call = target.describe_call(data, kwargs)
    kw_main, kw_cpu = dict(kwargs), dict(kwargs)
    if isinstance(kwargs.get("out"), torch.Tensor):
        kw_main["out"] = kwargs["out"].clone()
        kw_cpu["out"] = kwargs["out"].clone()
    data_cpu = copy.deepcopy(data) if isinstance(data, (list, tuple)) else data
    before = (
        raw_storage(kw_main["out"]) if has_bytes(kwargs.get("out")) else None
    )  # a sparse, nested or meta out has none
    main = _outcome(target.async_tensor_h2d, data, kw_main)
    cpu = _outcome(cast("Callable[..., torch.Tensor]", target.cpu_variant), data_cpu, kw_cpu)  # required above
    if main[0] == "raised" or cpu[0] == "raised":
        if main[0] != cpu[0]:
            who = "the main path" if main[0] == "raised" else "the CPU variant"
            exc = main[1] if main[0] == "raised" else cpu[1]
            fail(
                "cpu-path",
                f"only {who} raised",
                got=f"{type(exc).__name__}: {exc}",
                expected="both succeed or both raise",
                call=call,
            )
        if type(main[1]) is not type(cpu[1]):
            fail(
                "cpu-path",
                "different exception types",
                got=f"main {type(main[1]).__name__}: {main[1]} / cpu {type(cpu[1]).__name__}: {cpu[1]}",
                expected="the same type",
                call=call,
            )
        if before is not None:
            for name, kw in (("main path", kw_main), ("CPU variant", kw_cpu)):
                if not torch.equal(raw_storage(kw["out"]), before):
                    fail(
                        "cpu-path",
                        f"the {name} wrote into out before raising",
                        got="out modified",
                        expected="untouched",
                        call=call,
                    )
        return
    got, want = cpu[1], main[1]
    if not (has_bytes(got) and has_bytes(want)):
        # results without readable bytes (a meta or nested tensor: what a call that should have been
        # refused can return): agreement is on what they are, not on values
        described = [
            (
                type(r).__name__,
                getattr(r, "dtype", None),
                tuple(getattr(r, "shape", ())) if not getattr(r, "is_nested", False) else "nested",
                str(getattr(r, "device", "")),
            )
            for r in (got, want)
        ]
        if described[0] != described[1]:
            fail(
                "cpu-path",
                "the two paths return different things",
                got=f"CPU variant {described[0]}",
                expected=f"the main path's {described[1]}",
                call=call,
            )
        return
    assert_same_values(got, want.cpu(), contract="cpu-path", call=call + "  # CPU variant vs main path")


@prop("cpu-path")
def prop_cpu_path(target: Target, device: torch.device, **overrides: Any) -> None:
    """cpu-path: the CPU-platform variant and the main path agree on valid and bad inputs."""
    target.require("cpu-variant", "cpu-path")
    cpu = torch.device("cpu")

    def body(data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="bad input"):
            bad = data.draw(hs.bad_inputs(cpu), label="bad")
            if in_domain(target, bad.data, bad.kwargs):
                check_cpu_path_agrees(target, bad.data, bad.kwargs)
        else:
            call = data.draw(hs.h2d_calls(cpu, inputs=target.inputs, requires=target.requires), label="call")
            check_cpu_path_agrees(target, call.data, call.kwargs)

    run_given(body, overrides)


#: Targets the CPU-platform variant must refuse (it writes host memory only): spelled as engines spell them.
NON_HOST_DEVICES: tuple[Any, ...] = ("cuda", "cuda:0", 0, "meta")


@check("cpu-path")
def check_cpu_variant_refuses_device(target: Target, device: Any) -> None:
    """cpu-path: the CPU-platform variant refuses a non-host ``device`` with ValueError naming it (the reference's rule;
    a variant that hands the call to the main path would copy to the GPU on a CUDA host)."""
    target.require("cpu-variant", "cpu-path")
    variant = target.cpu_variant_target()
    kwargs: dict[str, Any] = {"device": device}
    if "dtype" in target.requires:  # a signature that requires dtype gets one (the refusal judged is device's)
        kwargs["dtype"] = torch.int64
    expect_raise("cpu-path", variant, [1, 2], kwargs, ValueError, f"the CPU variant with device={device!r}")


@prop("cpu-path", table=True)
def prop_cpu_variant_devices(target: Target, device: torch.device, **overrides: Any) -> None:
    """cpu-path: the CPU-platform variant refuses CUDA and meta devices, in every spelling (a table; on a CUDA host
    the main path would accept them, so a variant that delegates to it shows only there)."""
    target.require("cpu-variant", "cpu-path")
    del overrides
    if device.type == "cuda" and not torch.cuda.is_available():
        raise NotApplicable("cpu-path: no CUDA device")
    rows = Rows("cpu variant devices")
    for spelled in NON_HOST_DEVICES:
        rows.row(check_cpu_variant_refuses_device, target, spelled)
    rows.finish()
