"""b07 (CPU): "outside inference mode" tested with the grad mode: under ``torch.no_grad()`` an inference ``out`` is accepted, then torch writes it and raises.

Where: ``h2d_impl/h2d.py::_check_out``, the inference-tensor test.

Change (one call)::

    if out.is_inference() and not torch.is_inference_mode_enabled():   # reference
    if out.is_inference() and torch.is_grad_enabled():                  # bug: "inference mode = grad off"

Inference mode does turn grad off, so the two agree in plain code and inside
``torch.inference_mode()``; they part under ``torch.no_grad()`` (as engines run their
step loops): grad is off but the thread is not in inference mode. The check lets the
inference ``out`` through, and ``out.copy_(source)`` writes the values and only then raises
``RuntimeError`` ("Inplace update to inference tensor outside InferenceMode is not allowed"):
a refused call that wrote ``out``, with an undocumented exception type.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring, out: "Refused: ...
inference tensors outside inference mode" and "On any exception nothing has been written:
``out`` is untouched"; docs/reference.md, "Calling contexts": "`torch.no_grad()`: the same
results; an inference `out` is still refused (torch refuses its in-place update outside
inference mode, whatever the grad mode)"; docs/reference.md, "Where it differs from vLLM":
"`out` made under `torch.inference_mode()` | written, then `RuntimeError` | `ValueError`,
nothing written".

Smallest input: ``with torch.inference_mode(): out = torch.tensor([77])``; then
``with torch.no_grad(): async_tensor_h2d([1], out=out)``; ``out``.
Reference: ``ValueError`` (out is an inference tensor), ``out == [77]``. Bug: ``RuntimeError``
(Inplace update to inference tensor outside InferenceMode), ``out == [1]``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and torch.is_grad_enabled():  # BUG (r50 b07): grad mode read as "not in inference mode"
        # torch's copy_ would write first and raise RuntimeError after (nothing must be written).
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")


def target() -> Target:
    f = fork("b07", h2d={"_check_out": _check_out})
    return make_target(
        "b07_inference_by_grad_mode",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
