"""Bool targets no longer resolve negative/conjugate-bit views before the copy.

What changed: ``h2d._prepare`` ended with ``source = source.resolve_neg().resolve_conj()``
for a bool target whose source carries torch's lazy negative (or conjugate) bit. The
change drops those two lines: "``_serial_copy`` already sends neg/conj views to torch's own
``copy_``, which reads lazy views; the resolve is a leftover copy".

Why an engineer writes it: the copy helper's docstring does say neg and conj views take
torch's ``copy_`` whole, so the resolve looks redundant to someone cleaning up copies.

Promise broken: contracts "values" (every dtype and layout converted; a valid call that
raises fails) and docs/reference.md ("Inputs: ... CPU tensors in any strided layout").
torch's ``copy_`` has no neg kernel for bool: a real tensor with the negative bit (what
``x.conj().imag`` returns, or ``torch._neg_view``) into ``dtype=torch.bool`` raises
``NotImplementedError: "neg_cpu" not implemented for 'Bool'`` (the vLLM finding
``negative_bit_view_into_bool``, now on the host too).

Smallest input: ``t = torch.tensor([1 + 2j]).conj().imag`` (``[-2.0]``, neg bit set);
``async_tensor_h2d(t, dtype=torch.bool, device="cpu")``: reference ``tensor([True])``; bug
``NotImplementedError``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    check_dtype_arg(dtype)  # noqa: F821
    if out is not None:
        _check_out(out)  # noqa: F821
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]  # noqa: F821
    if out is not None:
        out_device = out.device
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        raise ValueError(f"the CPU-platform variant only targets host memory, got device {target}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)  # noqa: F821
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):  # noqa: F821
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)  # noqa: F821
    # BUG: no resolve_neg()/resolve_conj() for bool targets: copy_ reads lazy neg/conj views itself
    return source, dtype, target


def target() -> Target:
    return fork_target("b09_neg_view_into_bool_unresolved", fork("b09", h2d={"_prepare": _prepare}))
