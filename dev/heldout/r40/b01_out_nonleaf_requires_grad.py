"""b01 (CPU-visible): the ``out`` requires-grad refusal narrowed to autograd leaves.

Where: ``h2d_impl/h2d.py``, ``_check_out``.

Change: ``if out.requires_grad:`` -> ``if out.requires_grad and out.is_leaf:``.

Why plausible: torch itself refuses an in-place write only into a *leaf* that requires
grad ("a leaf Variable that requires grad is being used in an in-place operation"); a
non-leaf is a legal in-place target that autograd records. An engineer "aligning the
check with torch's own rule" narrows it to leaves, so that activations produced by a
graph can be refilled in place.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "ValueError: ... ``out`` requiring
grad or with overlapping memory"; README (values): the result is "detached";
docs/reference.md: "``out``: ... no ``requires_grad``"; "never part of the caller's
autograd graph".

Smallest input: ``w = torch.zeros(2, requires_grad=True); out = w * 1;
async_tensor_h2d([1.0, 2.0], out=out)``.
Reference: ``ValueError: out requires grad; ...``, ``out`` untouched.
Bug: returns ``out`` written with ``[1., 2.]`` and ``out.grad_fn`` a ``CopyBackwards``:
the upload is now part of the caller's graph. (With ``out = w[:2]``, a view of the leaf,
torch's own ``RuntimeError`` escapes instead of the documented ``ValueError``.)
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")  # noqa: F821  (resolved in the forked h2d module)
    if out.requires_grad and out.is_leaf:  # BUG: torch refuses in-place writes into leaves only
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):  # noqa: F821
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")  # noqa: F821


def _fork() -> Fork:
    return fork("b01", h2d={"_check_out": _check_out})


def target() -> Target:
    return fork_target_full("b01_out_nonleaf_requires_grad", _fork())
