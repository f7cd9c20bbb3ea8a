"""b03 (CPU-visible, h2d.py ``_check_out``): the nested-tensor refusal of ``out`` was dropped as redundant.

What changed: ``if out.is_nested: raise TypeError(...)`` was removed from ``_check_out``.

Why an engineer would write it: "the layout check just above already refuses anything
that is not ``torch.strided``, and nested tensors have their own layout". That holds for
``layout=torch.jagged`` only: ``torch.nested.nested_tensor([...])`` (the default) reports
``layout == torch.strided``, so it passes the layout check and reaches ``_may_overlap``,
whose ``out.stride()`` raises torch's internal ``RuntimeError``.

Promise broken: ``out`` not a strided tensor -> ``TypeError`` naming ``out`` (docstring
"TypeError: ... ``out`` not a strided tensor"; docs/reference.md "Errors: TypeError (wrong
kind) ... naming the argument"; contracts.md bad-input kind ``nested-out``: ``TypeError``,
"a bare RuntimeError fails").

Smallest input: ``async_tensor_h2d([1.0], out=torch.nested.nested_tensor([torch.zeros(2),
torch.zeros(3)]))``.
Reference: ``TypeError: out is a nested tensor; only strided (dense) tensors can be written``.
Bug: ``RuntimeError: Internal error: NestedTensorImpl doesn't support strides. Please file an issue.``
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")  # noqa: F821
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        # torch's copy_ would write first and raise RuntimeError after (nothing must be written).
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    # BUG: the `out.is_nested` refusal was removed ("the layout check covers nested tensors");
    # a default nested tensor reports layout torch.strided
    if _may_overlap(out):  # noqa: F821
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")  # noqa: F821


def _fork() -> Fork:
    return fork("b03", h2d={"_check_out": _check_out})


def target() -> Target:
    f = _fork()
    return make_target(
        "b03_nested_out_unchecked",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
