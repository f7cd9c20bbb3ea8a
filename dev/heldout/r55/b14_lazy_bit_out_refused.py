"""b14 (CPU): an ``out`` that is a conjugate or negative view is refused, though torch writes it as it reads.

Where: ``h2d_impl/h2d.py::_check_out`` (every call with ``out``; both entry points).

Change: a new refusal, a "harmless narrowing" beside the layout checks ("writing a conjugate view
stores the conjugate in the caller's memory, and ``_prepare`` already has to work around torch's
copies of negative views: refuse lazy outs and let the caller resolve them")::

    if out.is_nested:                                                         # reference
        raise TypeError("out is a nested tensor; ...")

    if out.is_conj() or out.is_neg():                                         # bug
        raise TypeError("out is a conjugate or negative view ...")
    if out.is_nested:
        raise TypeError(...)

torch's ``copy_`` into such a view is exact: the view then reads as the data (its storage holds the
conjugate or the negation, which is what the view means), so the reference writes it. The bug
refuses valid calls: ``out=z.conj()`` (a complex buffer filled through its conjugate), ``out=z.imag``
of a conjugated ``z``, any ``torch._neg_view``.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: optional strided tensor of shape exactly
``S`` on the target device. It is written in place (non-contiguous strides included) and returned.
Refused: [overlapping layouts, inference tensors outside inference mode, memory overlapping
``data``]" (a conjugate view is none of them); docs/reference.md, ``out``: the same list.

Smallest input: ``z = torch.zeros(1, dtype=torch.complex64); async_tensor_h2d([1+2j], out=z.conj())``.
Reference: returns the view, reading ``[1.+2.j]`` (``z`` holds ``[1.-2.j]``).
Bug: ``TypeError: out is a conjugate or negative view; pass out.resolve_conj().resolve_neg() ...``; ``z`` untouched.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one refusal added; every other name resolves in the forked module.
# ruff: noqa: F821


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_conj() or out.is_neg():  # BUG (r55 b14): torch writes lazy views exactly; a valid out refused
        raise TypeError(
            "out is a conjugate or negative view; pass out.resolve_conj().resolve_neg() (a tensor of its own)"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")


def target() -> Target:
    f = fork("b14", h2d={"_check_out": _check_out})
    return make_target(
        "b14_lazy_bit_out_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14"),
    )
