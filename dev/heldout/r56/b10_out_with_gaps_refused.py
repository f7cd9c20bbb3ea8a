"""b10 (CPU): an ``out`` with gaps between its elements (a column slice, a step slice) is refused.

Where: ``h2d_impl/h2d.py::_check_out`` (every call with ``out``, both entry points).

Change: a narrowing that reuses the reference's own notion of a DMA-able tensor ("a non_blocking copy
into a view with gaps is no single transfer, and torch writes it element by element: ask for a dense
``out``, as the zero-copy path asks of its inputs")::

    if _may_overlap(out):                                                         # reference (last check)
        raise ValueError(f"out has internally overlapping memory ...")

    if _may_overlap(out):                                                         # bug
        raise ValueError(f"out has internally overlapping memory ...")
    if not _dense(out):
        raise ValueError("out has gaps between its elements (a slice of a larger tensor); pass a dense out")

``_dense`` accepts contiguous tensors and permutations of them (a transposed or channels-last ``out``
still works), so the common ``out`` is unaffected. A row slice ``base[:n]`` is contiguous and passes;
a column slice ``base[:, :k]`` (a static buffer wider than this step), every other element
``base[::2]``, or a field of a larger tensor is refused, where the reference writes exactly those
elements and nothing between them.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: optional strided tensor of shape exactly ``S`` on
the target device. It is written in place (non-contiguous strides included) and returned. Refused:
layouts whose elements may share an address (...), inference tensors outside inference mode, and host
memory overlapping ``data``'s bytes"; docs/contracts.md, out: "``prop_out_written`` (contiguous, strided,
offset and transposed ``out``)".

Smallest input: ``base = torch.zeros(2, 3, dtype=torch.int64); async_tensor_h2d([[1, 2], [3, 4]], out=base[:, :2]); base``.
Reference: returns the view; ``base == [[1, 2, 0], [3, 4, 0]]``. Bug: ``ValueError: out has gaps between its
elements ...``; ``base`` all zeros.
"""

from __future__ import annotations

from typing import Any

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        # torch's copy_ would write first and raise RuntimeError after (nothing must be written).
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")
    if not _dense(out):  # BUG (r56 b10): a valid strided out with gaps refused ("not one DMA")
        raise ValueError("out has gaps between its elements (a slice of a larger tensor); pass a dense out")


def target() -> Target:
    f = fork("b10", h2d={"_check_out": _check_out})
    return make_target(
        "b10_out_with_gaps_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10"),
    )
