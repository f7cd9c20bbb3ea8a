"""``values`` past the default shapes: 1-D inputs of 4,095-65,537 elements around the sizes where implementations switch
paths, and multi-MB arrays and tensors (the non-blocking contract's sizes)."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import accepted, require_device, run_given
from h2d_contracts.harness.target import Target

from .checks import check_values

#: Lengths around the sizes where implementations switch paths (a 4 KiB page of int8,
#: an 8192-element threshold, 64 Ki elements); the default shapes stop at 5 per side.
LARGE_LENGTHS = (4095, 4096, 8192, 8193, 65537)


@prop("values", cap=12)
def prop_values_large(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 1-D lists, arrays and tensors of 4095-65537 elements are copied whole (no truncation past a size)."""
    require_device(target, device, "values")
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(LARGE_LENGTHS), label="length")
        dtype = data.draw(st.sampled_from([torch.int64, torch.int32, torch.float32, torch.bool]), label="dtype")
        kind = data.draw(st.sampled_from(kinds), label="kind")
        offset = data.draw(st.integers(-1000, 1000), label="offset")
        base = torch.arange(n, dtype=torch.int64) * 7 + offset  # every element distinct: a lost or moved one shows
        values = (base % 2 == 0) if dtype is torch.bool else base.to(dtype)
        payload: Any = values.tolist() if kind == "list" else values.numpy() if kind == "ndarray" else values
        check_values(target, payload, {"device": device})

    run_given(body, overrides)


#: Multi-MB payloads (4-16 MiB of int32/float32): the sizes where the GPU non-blocking
#: contract works, checked for values on every device. Also what proves, on a CPU-only
#: machine, that a failing run over such inputs still ends with a report (tests/test_runner_bounds.py).
MULTI_MB_ELEMENTS = (1 << 20, 4 << 20)


@prop("values", cap=3)
def prop_values_multi_mb(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 4-16 MiB arrays and tensors (1-4 Mi int32/float32 elements) are copied whole and exactly."""
    require_device(target, device, "values")
    kinds = accepted(target, ["ndarray", "tensor"], "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(MULTI_MB_ELEMENTS), label="elements")
        dtype = data.draw(st.sampled_from([torch.int32, torch.float32]), label="dtype")
        kind = data.draw(st.sampled_from(kinds), label="kind")
        values = (torch.arange(n, dtype=torch.int64) * 3 - n).to(
            dtype
        )  # every element distinct, exact in float32 (|v| < 2**24)
        payload: Any = values.numpy() if kind == "ndarray" else values
        check_values(target, payload, {"device": device})

    run_given(body, overrides)
