"""b11 (CPU-visible, h2d.py ``_check_out``): the layout test of ``out`` became ``out.is_sparse``, which is True for COO only: a CSR/CSC/BSR or mkldnn ``out`` passes it and fails later with a bare RuntimeError ("... do not have strides") instead of TypeError.

What changed: ``if out.layout != torch.strided: raise TypeError(...)`` became
``if out.is_sparse: raise TypeError(...)``.

Why an engineer would write it: the only non-strided ``out`` anyone had seen was a sparse
COO tensor, the message talks about "dense" tensors, and ``is_sparse`` reads as "is not
dense". torch's ``is_sparse`` is specifically the COO layout (``sparse_csr`` and friends
report False; there is ``is_sparse_csr`` for CSR alone). The next check that touches
strides (``_may_overlap``) then raises torch's own RuntimeError, before anything is
written.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "TypeError: ... ``out`` not a
strided tensor"; docs/reference.md "``out``: ... strided" and "Errors: ``TypeError``
(wrong kind) ... never assert, naming the argument"; docs/contracts.md bad-input kind
``sparse-out`` (``TypeError``) and "(an ``AssertionError`` or a bare ``RuntimeError``
fails)".

Smallest input: ``async_tensor_h2d([[1.0]], out=torch.zeros(1, 1).to_sparse_csr())``
(also ``to_sparse_csc()``, ``to_sparse_bsr((1, 1))``, ``torch.zeros(1).to_mkldnn()``).

Reference result: ``TypeError: out has layout torch.sparse_csr; only strided (dense)
tensors can be written``.
Bug result: ``RuntimeError: Sparse CSR tensors do not have strides`` (a COO ``out`` is
still refused with TypeError).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.is_sparse:  # BUG: was `out.layout != torch.strided`; is_sparse is the COO layout only
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    if out.requires_grad:
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
    f = fork("b11", h2d={"_check_out": _check_out})
    return make_target(
        "b11_out_layout_is_sparse",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
