"""b04 (CPU): an ``out`` that requires grad is refused only while grad mode is on; under ``torch.no_grad()`` it is written.

Where: ``h2d_impl/h2d.py::_check_out`` (every call with ``out``, both entry points).

Change: the refusal is made to follow autograd's own rule for in-place writes ("under no_grad an
in-place write is not recorded: optimizers update their parameters exactly so; refusing it only
stops an engine from loading weights into a parameter")::

    if out.requires_grad:                                                     # reference

    if out.requires_grad and torch.is_grad_enabled():                         # bug

Under ``torch.no_grad()`` (and under ``torch.inference_mode()``, which turns grad mode off too) a
leaf that requires grad, or a view of one, is now written in place: the call returns the
parameter with the data's values, its version counter advanced, where the reference refuses and
leaves it untouched. With grad mode on both refuse.

Promise broken: docs/reference.md, Calling contexts: "``torch.no_grad()``: the same results; an
inference ``out`` is still refused ..., as is an ``out`` that requires grad"; h2d_impl/h2d.py
``async_tensor_h2d``: "Raises: ValueError: ... ``out`` requiring grad"; docs/reference.md, ``out``:
"no ``requires_grad``".

Smallest input: ``w = torch.zeros(2, requires_grad=True); with torch.no_grad(): async_tensor_h2d([1.0, 2.0], out=w)``.
Reference: ``ValueError: out requires grad; in-place writes into it would be recorded by autograd``;
``w`` stays ``[0., 0.]``. Bug: returns ``w``, now ``[1., 2.]`` (``requires_grad=True``).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one condition added; every other name resolves in the forked module.
# ruff: noqa: F821


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    # autograd records nothing under no_grad: a parameter may be loaded in place there, as optimizers do
    if out.requires_grad and torch.is_grad_enabled():  # BUG (r55 b04): refusal depends on the grad mode
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")


def target() -> Target:
    f = fork("b04", h2d={"_check_out": _check_out})
    return make_target(
        "b04_out_grad_refusal_only_with_grad_mode",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
