"""b14 (CPU): a host result with no elements is the source itself ("nothing to copy").

Where: ``h2d_impl/h2d.py::_stage`` (every result made without ``out`` for a host target: ``async_tensor_h2d(...,
device='cpu')`` and the CPU variant).

Change: a shortcut for empty inputs ("an empty tensor has no bytes to stage: return it as it is, converted if
the dtype differs; engines upload many empty per-step lists (no spec tokens, no prefills)")::

    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)      # reference
    return _host_copy(staging, source)

    if not source.numel():                                                               # bug (inserted first)
        return source if source.dtype == dtype else source.to(dtype)
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)

For an empty tensor of the target dtype ``source`` is the caller's tensor (or, for one requiring grad, a detached
alias of it; for an empty ndarray, a view of the array): the call returns the caller's own object. No bytes are
shared, but everything else about the object is: metadata changes through the result (``unsqueeze_``,
``resize_``, ``as_strided_``, ``requires_grad_``) change the caller's tensor, and the result of a call made under
``torch.inference_mode()`` is not an inference tensor, nor contiguous when the input was not (an empty
transposed tensor keeps its strides).

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "Returns: ``out`` itself if given, else a new contiguous tensor of
shape ``S`` ... It never shares storage with ``data``"; docs/reference.md, Calling contexts: "``torch.inference_mode()``:
... results made without ``out`` are inference tensors (made inside the mode)".

Smallest input: ``d = torch.zeros(0, 3); r = async_tensor_h2d(d, device='cpu'); r is d; r.unsqueeze_(0); d.shape``.
Reference: ``False``, ``(0, 3)``. Bug: ``True``, ``(1, 0, 3)``.
"""

from __future__ import annotations

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _host_copy)


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``)."""
    if not source.numel():  # BUG (r58 b14): "nothing to copy": the caller's own tensor is returned
        return source if source.dtype == dtype else source.to(dtype)
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)


def target() -> Target:
    f = fork("b14", h2d={"_stage": _stage})
    return make_target(
        "b14_stage_empty_returns_source",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14"),
    )
